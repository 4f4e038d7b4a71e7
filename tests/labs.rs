//! Every lab (www/labs/data/*.json) played through the engine natively: each console line's
//! output must be exactly the lab's `expect`, each simulation's metrics the lab's numbers — so
//! the text a learner reads ("at step 3 you will see…") stays true. The lab's seed and start
//! time are the engine's; time passes only through CLOCK ADVANCE, as in the page's lab mode.
//!
//! `REDISPLAY_LABS_RECORD=1 cargo test --test labs` rewrites every `expect` from the engine
//! (then read the diff: the engine's replies are the ones the differential tests hold to
//! redis-server's).

use std::path::{Path, PathBuf};

use redisplay::session::servers::Servers;
use redisplay::sim::delay_queue::input::ConfigInput;
use redisplay::sim::delay_queue::Sim;
use redisplay::EngineOptions;
use serde_json::{json, Value};

const VIEWS: &[&str] = &["keyspace", "zset", "expiry", "eviction", "delay-queue", "persistence"];

fn labs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("www/labs/data");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.file_stem().is_some_and(|s| s != "index"))
        .collect();
    v.sort();
    v
}

fn text(v: &[u8]) -> String {
    let s = String::from_utf8_lossy(v).into_owned();
    s.strip_suffix('\n').map(str::to_string).unwrap_or(s)
}

/// The engine's real time per SET, as lab-adapters.js measures it in the page: the fastest of
/// three bursts of 20,000 SETs on a fresh engine.
fn measure_set_ns() -> f64 {
    (0..3)
        .map(|_| {
            let t = std::time::Instant::now();
            assert_eq!(redisplay::sim::pipeline::set_burst(20_000, 1), 20_000);
            t.elapsed().as_nanos() as f64 / 20_000.0
        })
        .fold(f64::INFINITY, f64::min)
}

/// Runs one simulation step; returns its metrics as JSON.
fn simulate(kind: &str, config: &Value) -> Result<Value, String> {
    match kind {
        "delay-queue" => {
            let input: ConfigInput = serde_json::from_value(config.clone()).map_err(|e| e.to_string())?;
            let mut sim = Sim::new(input.into_config()?)?;
            Ok(serde_json::to_value(sim.run()).unwrap())
        }
        "pipeline" => {
            let mut config = config.clone();
            // `server: "this-page"`: the page times its engine running SETs (lab-adapters.js);
            // here the native engine is timed the same way. Labs quote no number that depends on it.
            if config.get("server").and_then(Value::as_str) == Some("this-page") {
                config["serviceNs"] = json!(measure_set_ns());
            }
            let input: redisplay::sim::pipeline::ConfigInput =
                serde_json::from_value(config).map_err(|e| e.to_string())?;
            Ok(serde_json::to_value(redisplay::sim::pipeline::run(&input.into_config()?)).unwrap())
        }
        "cache-aside" => {
            let input: redisplay::sim::cache_aside::ConfigInput =
                serde_json::from_value(config.clone()).map_err(|e| e.to_string())?;
            Ok(serde_json::to_value(redisplay::sim::cache_aside::run(&input.into_config()?)).unwrap())
        }
        other => Err(format!("unknown sim {other}")),
    }
}

/// Plays a lab; returns the differences (and rewrites `lab`'s expectations when recording).
fn play(lab: &mut Value, record: bool) -> Vec<String> {
    let mut diffs = Vec::new();
    let seed = lab["seed"].as_u64().expect("seed");
    let start_ms = lab["startMs"].as_i64().expect("startMs");
    let mut s = Servers::new(EngineOptions { seed, start_ms });
    let steps = lab["steps"].as_array_mut().expect("steps");
    assert!(!steps.is_empty());
    for (n, step) in steps.iter_mut().enumerate() {
        let title = step["title"].as_str().unwrap_or("").to_string();
        assert!(!title.is_empty(), "step {} has no title", n + 1);
        assert!(step["text"].as_str().is_some_and(|t| !t.is_empty()), "step {} has no text", n + 1);
        if let Some(view) = step.get("view").and_then(Value::as_str) {
            assert!(VIEWS.contains(&view), "step {}: unknown view {view}", n + 1);
        }
        let Some(lines) = step.get_mut("lines").and_then(Value::as_array_mut) else { continue };
        for item in lines.iter_mut() {
            let console = item.get("console").and_then(Value::as_u64).unwrap_or(0) as usize;
            // `server`: 1 opens the console on the second server (127.0.0.1:6380).
            let server = item.get("server").and_then(Value::as_u64).unwrap_or(0) as usize;
            while s.console_count() <= console {
                s.open_console_on(server);
            }
            assert_eq!(s.server_of(console), Some(server), "step {}: console {console} is on the other server", n + 1);
            let (what, actual) = if let Some(link) = item.get("link") {
                if let Some(ms) = link.get("latencyMs").and_then(Value::as_i64) {
                    s.set_link_latency(ms);
                }
                if let Some(down) = link.get("down").and_then(Value::as_bool) {
                    s.set_link_down(down);
                }
                continue;
            } else if let Some(raw) = item.get("raw").and_then(Value::as_bool) {
                // `raw`: the console prints as `redis-cli --raw` (true) or as by default (false).
                s.set_raw(console, raw);
                continue;
            } else if let Some(line) = item.get("line").and_then(Value::as_str) {
                let line = line.to_string();
                let mut out = s.run_line_on(console, line.as_bytes()).text;
                // A script that outlives its first slice runs to its end, as the page's loop runs
                // it frame by frame; its reply is what the console prints then.
                while s.main.engine.busy_script().is_some() {
                    s.main.engine.run_script_slice(10_000_000);
                    s.settle();
                }
                if out.is_empty() {
                    out = s.poll(console);
                }
                (line, Value::String(text(&out)))
            } else if item.get("receive").and_then(Value::as_bool) == Some(true) {
                (format!("(console {console} receives)"), Value::String(text(&s.poll(console))))
            } else if let Some(kind) = item.get("sim").and_then(Value::as_str) {
                let kind = kind.to_string();
                match simulate(&kind, &item["config"]) {
                    Ok(m) => {
                        // Only the fields the lab quotes are checked.
                        let want = item.get("expect").cloned().unwrap_or(json!({}));
                        // (Recording keeps the lab's choice of fields, if it made one.)
                        let picked = match (&want, &m) {
                            (Value::Object(w), Value::Object(mm)) if !w.is_empty() => Value::Object(
                                w.keys().filter_map(|k| mm.get(k).map(|v| (k.clone(), v.clone()))).collect(),
                            ),
                            _ => m.clone(),
                        };
                        (format!("sim {kind}"), picked)
                    }
                    Err(e) => {
                        diffs.push(format!("step {} ({title}): sim {kind}: {e}", n + 1));
                        continue;
                    }
                }
            } else {
                panic!("step {}: a line needs `line`, `receive`, `sim`, `link` or `raw`: {item}", n + 1);
            };
            if record {
                item["expect"] = actual;
            } else if let Some(want) = item.get("expect") {
                if *want != actual {
                    diffs.push(format!("step {} ({title}): {what}\n  lab says: {want}\n  engine:   {actual}", n + 1));
                }
            }
        }
    }
    diffs
}

#[test]
fn every_lab_says_what_the_engine_does() {
    let record = std::env::var("REDISPLAY_LABS_RECORD").is_ok_and(|v| v == "1");
    let labs = labs();
    assert!(!labs.is_empty(), "no labs in www/labs/data");
    let mut failures = Vec::new();
    let mut ids = Vec::new();
    for path in &labs {
        let raw = std::fs::read_to_string(path).unwrap();
        let mut lab: Value = serde_json::from_str(&raw).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let id = lab["id"].as_str().unwrap_or("").to_string();
        assert_eq!(
            Some(id.as_str()),
            path.file_stem().and_then(|s| s.to_str()),
            "{}: id must be the file name",
            path.display()
        );
        assert!(lab["title"].as_str().is_some_and(|t| !t.is_empty()), "{id}: no title");
        assert!(lab["summary"].as_str().is_some_and(|t| !t.is_empty()), "{id}: no summary");
        for v in lab["views"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
            assert!(VIEWS.contains(&v.as_str().unwrap_or("")), "{id}: unknown view {v}");
        }
        ids.push(id.clone());
        let diffs = play(&mut lab, record);
        if record {
            std::fs::write(path, serde_json::to_string_pretty(&lab).unwrap() + "\n").unwrap();
        }
        if !diffs.is_empty() {
            failures.push(format!("{id}:\n{}", diffs.join("\n")));
        }
    }
    eprintln!("labs: {} played ({})", ids.len(), ids.join(", "));
    assert!(failures.is_empty(), "{} lab(s) differ from the engine:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// The lab index the page reads lists every lab file, in the order the page shows them.
#[test]
fn the_index_lists_every_lab() {
    let index: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/www/labs/data/index.json")).unwrap_or_default(),
    )
    .unwrap_or(Value::Null);
    let listed: Vec<&str> =
        index["labs"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let mut files: Vec<String> = labs().iter().filter_map(|p| p.file_stem()?.to_str().map(String::from)).collect();
    let mut sorted: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
    sorted.sort();
    files.sort();
    assert_eq!(sorted, files, "www/labs/data/index.json must list every lab once");
    // A track groups labs of the list (the picker shows it as a heading): each of its labs is
    // listed, and in no other track.
    let mut in_tracks: Vec<&str> = Vec::new();
    for track in index["tracks"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        assert!(track["id"].as_str().is_some_and(|t| !t.is_empty()), "a track has no id: {track}");
        assert!(track["title"].as_str().is_some_and(|t| !t.is_empty()), "a track has no title: {track}");
        let labs: Vec<&str> =
            track["labs"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        assert!(!labs.is_empty(), "track {track} has no labs");
        // …side by side in the list, in the track's order (the picker shows one heading above them).
        let at = listed.iter().position(|id| *id == labs[0]).unwrap_or(0);
        assert_eq!(
            listed.get(at..at + labs.len()),
            Some(labs.as_slice()),
            "track {}: its labs must follow each other in the list",
            track["id"]
        );
        for id in labs {
            assert!(listed.contains(&id), "track {}: {id} is not in the list", track["id"]);
            assert!(!in_tracks.contains(&id), "{id} is in two tracks");
            in_tracks.push(id);
        }
    }
}
