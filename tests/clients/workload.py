"""A scripted, deterministic workload through redis-py, one line per step: `name: repr(result)`.

    python workload.py PORT PROTOCOL        (PROTOCOL: 2 or 3)

tests/server_clients.rs runs it against a fresh redis-server 7.0 and a fresh `redisplay serve`
(each over RESP2 and RESP3) and requires the two outputs to be identical. So nothing printed may
depend on the moment, the port or the connection: client ids are masked, TTLs are printed as
"in range" booleans, sets are sorted. Every step catches redis errors and prints their text, so a
failing step shows up as a difference rather than ending the run.
"""

import sys
import threading
import time

import redis

PORT = int(sys.argv[1])
PROTO = int(sys.argv[2])


def client(**kw):
    return redis.Redis(host="127.0.0.1", port=PORT, protocol=PROTO, decode_responses=True, socket_timeout=10, **kw)


r = client()
other = client()


def step(name, fn):
    try:
        result = fn()
    except redis.exceptions.RedisError as e:
        result = "%s(%r)" % (type(e).__name__, str(e))
    print("%s: %r" % (name, result), flush=True)


def wait_for(cond, what):
    deadline = time.time() + 10
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    raise SystemExit("timed out waiting for " + what)


def masked_hello(h):
    # RESP2: a flat list of field, value, ...; RESP3: a map.
    h = dict(zip(h[::2], h[1::2])) if isinstance(h, list) else dict(h)
    h["id"] = "<id>"
    return h


step("flushall", lambda: r.flushall())

# --- strings ----------------------------------------------------------------------------------
step("set", lambda: r.set("s", "hello"))
step("get", lambda: r.get("s"))
step("append", lambda: r.append("s", " world"))
step("strlen", lambda: r.strlen("s"))
step("getrange", lambda: r.getrange("s", 0, 4))
step("setrange", lambda: r.setrange("s", 6, "WORLD"))
step("set nx existing", lambda: r.set("s", "x", nx=True))
step("set xx get", lambda: r.set("s", "new", xx=True, get=True))
step("mset", lambda: r.mset({"m1": "a", "m2": "b"}))
step("mget", lambda: r.mget("m1", "m2", "nokey"))
step("msetnx", lambda: r.msetnx({"m2": "z", "m3": "c"}))
step("getdel", lambda: r.getdel("m1"))
step("get missing", lambda: r.get("m1"))
step("setnx", lambda: r.setnx("m1", "again"))
step("big value", lambda: (r.set("big", "x" * 100000), r.strlen("big"), len(r.get("big"))))

# --- counters ---------------------------------------------------------------------------------
step("incr", lambda: r.incr("n"))
step("incrby", lambda: r.incrby("n", 41))
step("decr", lambda: r.decr("n"))
step("decrby", lambda: r.decrby("n", 10))
step("incrbyfloat", lambda: r.incrbyfloat("f", 3.5))
step("incrbyfloat again", lambda: r.incrbyfloat("f", "0.1"))
step("incrbyfloat exp", lambda: r.incrbyfloat("f", "1e3"))
step("get counter", lambda: r.get("n"))

# --- hashes -----------------------------------------------------------------------------------
step("hset mapping", lambda: r.hset("h", mapping={"a": "1", "b": "2", "c": "3"}))
step("hgetall", lambda: r.hgetall("h"))
step("hget", lambda: r.hget("h", "a"))
step("hmget", lambda: r.hmget("h", ["a", "nofield", "c"]))
step("hincrby", lambda: r.hincrby("h", "a", 10))
step("hincrbyfloat", lambda: r.hincrbyfloat("h", "b", 0.25))
step("hkeys", lambda: r.hkeys("h"))
step("hvals", lambda: r.hvals("h"))
step("hlen", lambda: r.hlen("h"))
step("hexists", lambda: (r.hexists("h", "a"), r.hexists("h", "zz")))
step("hdel", lambda: r.hdel("h", "c", "zz"))
step("hsetnx", lambda: r.hsetnx("h", "a", "x"))
step("hgetall after", lambda: r.hgetall("h"))
step("hgetall missing", lambda: r.hgetall("nohash"))
step("hrandfield count", lambda: sorted(r.hrandfield("h", 5)))

# --- lists ------------------------------------------------------------------------------------
step("rpush", lambda: r.rpush("l", "a", "b", "c", "d"))
step("lpush", lambda: r.lpush("l", "z"))
step("lrange", lambda: r.lrange("l", 0, -1))
step("llen", lambda: r.llen("l"))
step("lindex", lambda: r.lindex("l", -1))
step("linsert", lambda: r.linsert("l", "BEFORE", "c", "bb"))
step("lpos", lambda: r.lpos("l", "c"))
step("lpop", lambda: r.lpop("l"))
step("rpop count", lambda: r.rpop("l", 2))
step("lrem", lambda: r.lrem("l", 0, "bb"))
step("lset", lambda: r.lset("l", 0, "A"))
step("lrange after", lambda: r.lrange("l", 0, -1))
step("lmove", lambda: r.lmove("l", "l2", "LEFT", "RIGHT"))
step("lpop missing", lambda: r.lpop("nolist"))

# --- sets -------------------------------------------------------------------------------------
step("sadd", lambda: r.sadd("st", "b", "a", "c", "a"))
step("smembers", lambda: sorted(r.smembers("st")))
step("smembers type", lambda: type(r.smembers("st")).__name__)
step("sismember", lambda: (r.sismember("st", "a"), r.sismember("st", "zz")))
step("smismember", lambda: r.smismember("st", ["a", "q", "c"]))
step("scard", lambda: r.scard("st"))
step("sadd ints", lambda: r.sadd("si", 3, 1, 2))
step("sinter", lambda: sorted(r.sinter("st", "st2")))
step("sunion", lambda: sorted(r.sunion("st", "si")))
step("sdiff", lambda: sorted(r.sdiff("st", "si")))
step("srem", lambda: r.srem("st", "a", "zz"))
step("smembers after", lambda: sorted(r.smembers("st")))
step("smembers missing", lambda: r.smembers("noset"))

# --- sorted sets ------------------------------------------------------------------------------
step("zadd", lambda: r.zadd("z", {"a": 1, "b": 2.5, "c": -3, "d": 10}))
step("zrange", lambda: r.zrange("z", 0, -1))
step("zrange withscores", lambda: r.zrange("z", 0, -1, withscores=True))
step("zrevrange withscores", lambda: r.zrevrange("z", 0, 1, withscores=True))
step("zrangebyscore", lambda: r.zrangebyscore("z", 0, 5, withscores=True))
step("zscore", lambda: r.zscore("z", "b"))
step("zscore missing", lambda: r.zscore("z", "nope"))
step("zmscore", lambda: r.zmscore("z", ["a", "nope", "c"]))
step("zincrby", lambda: r.zincrby("z", 0.5, "b"))
step("zincrby new", lambda: r.zincrby("z", 1.25, "e"))
step("zrank", lambda: (r.zrank("z", "a"), r.zrevrank("z", "a"), r.zrank("z", "nope")))
step("zcard", lambda: r.zcard("z"))
step("zcount", lambda: r.zcount("z", "-inf", "(3"))
step("zpopmin", lambda: r.zpopmin("z"))
step("zpopmax 2", lambda: r.zpopmax("z", 2))
step("zrange after", lambda: r.zrange("z", 0, -1, withscores=True))
step("zadd incr", lambda: r.zadd("z", {"a": 2}, incr=True))
step("zrandmember", lambda: r.zrandmember("z", 5) and sorted(r.zrandmember("z", 5)))

# --- expiry -----------------------------------------------------------------------------------
step("set px", lambda: r.set("e", "v", px=5000))
step("pttl in range", lambda: 0 < r.pttl("e") <= 5000)
step("ttl in range", lambda: 0 < r.ttl("e") <= 5)
step("persist", lambda: r.persist("e"))
step("ttl persistent", lambda: r.ttl("e"))
step("expire", lambda: r.expire("e", 100))
step("expire nx", lambda: r.expire("e", 200, nx=True))
step("ttl after expire", lambda: 95 <= r.ttl("e") <= 100)
step("pttl missing", lambda: r.pttl("nokey"))
step("set px short", lambda: r.set("gone", "v", px=50))
step("expired after wait", lambda: wait_for(lambda: r.get("gone") is None, "gone to expire"))
step("getex", lambda: (r.getex("e", persist=True), r.ttl("e")))

# --- pipeline ---------------------------------------------------------------------------------
def pipeline():
    p = r.pipeline(transaction=False)
    p.set("p1", "1").incr("p1").get("p1").lpush("pl", "x", "y").lrange("pl", 0, -1).hgetall("h")
    p.zscore("z", "a").incr("s")
    return p.execute(raise_on_error=False)


step("pipeline", lambda: [str(x) if isinstance(x, Exception) else x for x in pipeline()])

def long_pipeline():
    p = r.pipeline(transaction=False)
    for i in range(1000):
        p.incr("pn")
        p.rpush("plist", i)
    out = p.execute()
    return len(out), out[-2:], r.llen("plist"), r.lrange("plist", -3, -1)


step("pipeline of 2000", long_pipeline)

# --- MULTI/EXEC -------------------------------------------------------------------------------
def transaction():
    p = r.pipeline(transaction=True)
    p.incr("tx").incr("tx").set("txs", "a").get("txs").zadd("tz", {"m": 1.5}).zrange("tz", 0, -1, withscores=True)
    return p.execute()


step("multi/exec", transaction)


def transaction_error():
    p = r.pipeline(transaction=True)
    p.set("txe", "1").lpush("txe", "x").incr("txe")
    return [str(x) if isinstance(x, Exception) else x for x in p.execute(raise_on_error=False)]


step("multi/exec with a failing command", transaction_error)

# --- WATCH conflict ---------------------------------------------------------------------------
def watch_conflict():
    r.set("w", "0")
    with r.pipeline() as p:
        p.watch("w")
        before = p.get("w")
        other.set("w", "changed by another client")
        p.multi()
        p.set("w", "mine")
        try:
            p.execute()
            outcome = "executed"
        except redis.exceptions.WatchError as e:
            outcome = "WatchError"
    return before, outcome, r.get("w")


step("watch conflict", watch_conflict)


def watch_ok():
    with r.pipeline() as p:
        p.watch("w")
        p.multi()
        p.set("w", "mine")
        return p.execute()


step("watch no conflict", watch_ok)

# --- pub/sub ----------------------------------------------------------------------------------
def pubsub():
    out = []
    p = r.pubsub()
    p.subscribe("chan")
    out.append(p.get_message(timeout=5))
    p.psubscribe("ch*")
    out.append(p.get_message(timeout=5))
    out.append(("numsub", other.pubsub_numsub("chan"), other.pubsub_numpat()))
    out.append(("publish", other.publish("chan", "hello")))
    out.append(p.get_message(timeout=5))
    out.append(p.get_message(timeout=5))
    out.append(("publish", other.publish("chX", "pattern only")))
    out.append(p.get_message(timeout=5))
    p.unsubscribe("chan")
    out.append(p.get_message(timeout=5))
    p.punsubscribe()
    out.append(p.get_message(timeout=5))
    out.append(("publish after", other.publish("chan", "nobody")))
    p.close()
    return out


step("pubsub", pubsub)

# --- a blocking pop served by another client --------------------------------------------------
def blocking_pop():
    blocker = client()
    got = {}

    def pop():
        got["blpop"] = blocker.blpop(["bq1", "bq"], timeout=10)

    t = threading.Thread(target=pop)
    t.start()
    wait_for(lambda: other.info("clients")["blocked_clients"] == 1, "the BLPOP to block")
    pushed = other.rpush("bq", "job1", "job2")
    t.join()
    blocker.close()
    return got["blpop"], pushed, r.lrange("bq", 0, -1)


step("blocking pop", blocking_pop)
step("blpop timeout", lambda: r.blpop("nothing", timeout=0.05))
step("bzpopmin", lambda: r.bzpopmin("z", timeout=1))

# --- Lua --------------------------------------------------------------------------------------
step("eval", lambda: r.eval("return {KEYS[1], ARGV[1], redis.call('incr', KEYS[1]), 3.99, 'x'}", 1, "ek", "arg"))
step("eval status", lambda: r.eval("return redis.status_reply('FINE')", 0))
step("eval error", lambda: r.eval("return redis.error_reply('MY failure')", 0))
step("eval nil", lambda: r.eval("return redis.call('get', 'nokey')", 0))
step("eval table", lambda: r.eval("return redis.call('hgetall', KEYS[1])", 1, "h"))
step("eval bool", lambda: r.eval("return true", 0))
sha = r.script_load("return ARGV[1] .. '!'")
step("script load sha", lambda: sha)
step("evalsha", lambda: r.evalsha(sha, 0, "hey"))
step("script exists", lambda: r.script_exists(sha, "0" * 40))
step("registered script", lambda: r.register_script("return redis.call('incrby', KEYS[1], ARGV[1])")(keys=["rs"], args=[5]))
step("eval runtime error", lambda: r.eval("return redis.call('incr', 's')", 0))

# --- HELLO / CLIENT ---------------------------------------------------------------------------
step("hello", lambda: masked_hello(r.execute_command("HELLO", PROTO)))
step("client setname", lambda: r.client_setname("workload"))
step("client getname", lambda: r.client_getname())
step("client id is int", lambda: isinstance(r.client_id(), int))
step("client setname bad", lambda: r.client_setname("has space"))
step("ping", lambda: r.ping())


def reset():
    c = client()
    c.client_setname("to-reset")
    out = c.execute_command("RESET")
    c.close()
    return out


step("reset", reset)
step("echo", lambda: r.echo("hi"))

# --- INFO keyspace ----------------------------------------------------------------------------
def keyspace():
    info = r.info("keyspace")
    return {db: {k: v for k, v in fields.items() if k != "avg_ttl"} for db, fields in info.items()}


step("info keyspace", keyspace)
step("dbsize", lambda: r.dbsize())
step("keys", lambda: sorted(r.keys("m*")))
step("scan_iter", lambda: sorted(r.scan_iter(match="p*", count=2)))
step("type", lambda: [r.type(k) for k in ("s", "h", "l", "st", "z", "nokey")])
step("object encoding", lambda: [r.object("encoding", k) for k in ("n", "s", "h", "l", "si", "st", "z", "big")])
step("exists", lambda: r.exists("s", "h", "nokey"))
step("rename", lambda: (r.rename("s", "s2"), r.get("s2")))
step("unlink", lambda: r.unlink("s2", "nokey"))

# --- errors -----------------------------------------------------------------------------------
step("wrongtype", lambda: r.lpush("h", "x"))
step("not an integer", lambda: r.incr("m2"))
step("not a float", lambda: r.incrbyfloat("m2", 1))
step("unknown command", lambda: r.execute_command("NOSUCHCMD", "a"))
step("wrong arity", lambda: r.execute_command("GET"))
step("syntax error", lambda: r.execute_command("SET", "k", "v", "EX"))
step("bad expire", lambda: r.execute_command("SET", "k", "v", "EX", "0"))

# --- bytes ------------------------------------------------------------------------------------
raw = redis.Redis(host="127.0.0.1", port=PORT, protocol=PROTO, socket_timeout=10)
step("binary set", lambda: raw.set(b"bin\x00key", b"\x00\xff\r\n"))
step("binary get", lambda: raw.get(b"bin\x00key"))
step("binary hgetall", lambda: raw.hgetall("h"))
step("binary zrange", lambda: raw.zrange("z", 0, -1, withscores=True))

step("flushdb", lambda: r.flushdb())
step("dbsize after", lambda: r.dbsize())
