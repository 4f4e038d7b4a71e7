// Reads the small subset of TypeScript that www/types/*.d.ts are written in — interfaces,
// type aliases, unions, string literals, arrays, labelled tuples — and checks a JavaScript value
// against a type from them: every field present (optional ones may be missing), no field the
// type does not list, each of the right kind. engine-shapes.test.mjs holds what the built wasm
// package returns to these types.

/** @typedef {{kind: "name", name: string} | {kind: "literal", value: string} | {kind: "array", of: Type} | {kind: "tuple", items: Array<{label: string, type: Type}>} | {kind: "object", fields: Field[]} | {kind: "union", of: Type[]}} Type */
/** @typedef {{name: string, optional: boolean, type: Type}} Field */

function tokenize(text) {
  const src = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
  const tokens = [];
  const re = /\s*(?:("(?:[^"\\]|\\.)*")|([A-Za-z_$][\w$]*)|(.))/gy;
  while (re.lastIndex < src.length) {
    const m = re.exec(src);
    if (m === null) break;
    if (m[1] !== undefined) tokens.push({ t: "str", v: JSON.parse(m[1]) });
    else if (m[2] !== undefined) tokens.push({ t: "id", v: m[2] });
    else if (m[3] !== undefined && m[3].trim() !== "") tokens.push({ t: "p", v: m[3] });
  }
  return tokens;
}

/**
 * The named types of some .d.ts texts: `Map<name, Type>`. Statements it cannot read (generics,
 * indexed access) are left out; checking against one of them then fails with its name.
 * @param {string[]} texts
 */
export function readTypes(texts) {
  /** @type {Map<string, Type>} */
  const types = new Map();
  for (const text of texts) {
    const tokens = tokenize(text);
    let i = 0;
    const peek = (v) => tokens[i]?.v === v;
    const expect = (v) => {
      if (tokens[i]?.v !== v) throw new Error(`expected ${v}, found ${tokens[i]?.v ?? "the end"}`);
      i += 1;
    };
    const ident = () => {
      const tok = tokens[i];
      if (tok?.t !== "id") throw new Error(`expected a name, found ${tok?.v ?? "the end"}`);
      i += 1;
      return tok.v;
    };
    function fields() {
      const out = [];
      expect("{");
      while (!peek("}")) {
        const name = ident();
        const optional = peek("?");
        if (optional) i += 1;
        expect(":");
        out.push({ name, optional, type: type() });
        if (peek(";") || peek(",")) i += 1;
      }
      expect("}");
      return out;
    }
    function primary() {
      const tok = tokens[i];
      if (tok?.v === "(") {
        i += 1;
        const inner = type();
        expect(")");
        return inner;
      }
      if (tok?.v === "[") {
        i += 1;
        const items = [];
        while (!peek("]")) {
          const label = ident();
          expect(":");
          items.push({ label, type: type() });
          if (peek(",")) i += 1;
        }
        expect("]");
        return { kind: "tuple", items };
      }
      if (tok?.v === "{") return { kind: "object", fields: fields() };
      if (tok?.t === "str") {
        i += 1;
        return { kind: "literal", value: tok.v };
      }
      return { kind: "name", name: ident() };
    }
    function postfix() {
      let t = primary();
      while (peek("[") && tokens[i + 1]?.v === "]") {
        i += 2;
        t = { kind: "array", of: t };
      }
      if (peek("[") || peek("<")) throw new Error("indexed access and generics are not read");
      return t;
    }
    function type() {
      if (peek("|")) i += 1;
      const members = [postfix()];
      while (peek("|")) {
        i += 1;
        members.push(postfix());
      }
      return members.length === 1 ? members[0] : { kind: "union", of: members };
    }
    while (i < tokens.length) {
      const start = i;
      try {
        if (peek("import")) {
          while (!peek(";")) i += 1;
          i += 1;
          continue;
        }
        if (peek("export")) i += 1;
        if (peek("interface")) {
          i += 1;
          const name = ident();
          types.set(name, { kind: "object", fields: fields() });
        } else if (peek("type")) {
          i += 1;
          const name = ident();
          expect("=");
          types.set(name, type());
          expect(";");
        } else {
          throw new Error(`unexpected ${tokens[i].v}`);
        }
      } catch {
        // Skip to the end of the statement this reader does not take.
        i = start + 1;
        let depth = 0;
        while (i < tokens.length && !(depth === 0 && peek(";"))) {
          if (peek("{") || peek("(") || peek("[") || peek("<")) depth += 1;
          if (peek("}") || peek(")") || peek("]") || peek(">")) depth -= 1;
          i += 1;
          if (depth === 0 && tokens[i - 1].v === "}" && (peek("export") || i >= tokens.length)) break;
        }
        if (peek(";")) i += 1;
      }
    }
  }
  return types;
}

const PRIMITIVES = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number",
  boolean: (v) => typeof v === "boolean",
  true: (v) => v === true,
  false: (v) => v === false,
  bigint: (v) => typeof v === "bigint",
  null: (v) => v === null,
  unknown: () => true,
  Uint8Array: (v) => v instanceof Uint8Array,
};

const show = (v) => {
  if (typeof v === "bigint") return `${v}n`;
  const text = JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x));
  return text === undefined ? String(v) : text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

/**
 * What is wrong with `value` as a `type` (a name from `types`): a list of sentences, empty when
 * it fits. A union of interfaces tagged by a `kind` or `type` literal is told apart by it.
 * @param {Map<string, Type>} types
 * @param {unknown} value
 * @param {Type | string} type
 * @param {string} [path]
 * @returns {string[]}
 */
export function check(types, value, type, path = "value") {
  const t = typeof type === "string" ? { kind: "name", name: type } : type;
  switch (t.kind) {
    case "name": {
      if (Object.hasOwn(PRIMITIVES, t.name)) return PRIMITIVES[t.name](value) ? [] : [`${path}: ${show(value)} is not ${t.name}`];
      const named = types.get(t.name);
      if (!named) return [`${path}: the type ${t.name} is not one this reader took from the .d.ts files`];
      return check(types, value, named, path);
    }
    case "literal":
      return value === t.value ? [] : [`${path}: ${show(value)} is not ${JSON.stringify(t.value)}`];
    case "array":
      if (!Array.isArray(value)) return [`${path}: ${show(value)} is not an array`];
      return value.flatMap((v, k) => check(types, v, t.of, `${path}[${k}]`));
    case "tuple":
      if (!Array.isArray(value) || value.length !== t.items.length) return [`${path}: ${show(value)} is not a ${t.items.length}-tuple`];
      return t.items.flatMap((item, k) => check(types, value[k], item.type, `${path}.${item.label}`));
    case "object": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return [`${path}: ${show(value)} is not an object`];
      const known = new Set(t.fields.map((f) => f.name));
      const out = Object.keys(value)
        .filter((k) => !known.has(k))
        .map((k) => `${path}.${k}: a field the type does not list`);
      for (const f of t.fields) {
        if (!Object.hasOwn(value, f.name)) {
          if (!f.optional) out.push(`${path}.${f.name}: missing`);
        } else out.push(...check(types, value[f.name], f.type, `${path}.${f.name}`));
      }
      return out;
    }
    case "union": {
      const members = t.of.map((m) => (m.kind === "name" && types.has(m.name) ? types.get(m.name) : m));
      // A tagged union: the member whose `kind` (events) or `type` (replies) literal matches.
      for (const tag of ["kind", "type"]) {
        const want = value !== null && typeof value === "object" ? value[tag] : undefined;
        if (typeof want !== "string") continue;
        const tagged = members.find((m) => m.kind === "object" && m.fields.some((f) => f.name === tag && f.type.kind === "literal" && f.type.value === want));
        if (tagged) return check(types, value, tagged, `${path}<${want}>`);
      }
      const attempts = t.of.map((m) => check(types, value, m, path));
      return attempts.some((a) => a.length === 0) ? [] : [`${path}: ${show(value)} fits none of the union (${attempts.map((a) => a[0]).join("; ")})`];
    }
    default:
      return [`${path}: unknown type ${JSON.stringify(t)}`];
  }
}
