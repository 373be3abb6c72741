// The layering in docs/architecture.md (Layers), enforced by path with eslint-plugin-boundaries, so a
// relative import cannot get around it: every file belongs to an element, and an element may import
// only the elements listed for it here. Anything not listed is refused.
import boundaries from "eslint-plugin-boundaries";

/**
 * The runtime's rooms, each allowed the rooms below it, and only through their index.ts. The graph
 * has no cycle: access and agent at the bottom, runs at the top.
 */
const ROOMS_BELOW = {
  access: [],
  agent: [],
  log: ["access"],
  policies: ["access", "agent"],
  notify: ["access"],
  mcp: ["access", "agent", "notify"],
  retention: ["access"],
  pause: ["access", "agent", "log", "policies"],
  cluster: ["access", "agent", "log", "pause"],
  loop: ["access", "agent", "log", "policies"],
  runs: ["access", "agent", "log", "policies", "notify", "mcp", "loop", "pause", "cluster"],
  // Not a room of rules: it builds every room and joins them (createRuntime's parts).
  wiring: ["access", "agent", "log", "policies", "notify", "mcp", "retention", "loop", "pause", "cluster", "runs"],
};

/** Leaves any server code may use: the vocabulary, the settings, the logger, the process id. */
const LEAVES = ["domain", "config", "log", "instance-id", "crypto", "telemetry"];

/** What each part of the server may import (besides itself and the leaves). */
const SERVER_ALLOWS = {
  domain: [],
  crypto: [],
  telemetry: ["domain"],
  config: ["domain"],
  log: ["domain", "config"],
  "instance-id": [],
  db: [...LEAVES],
  "runtime-errors": ["domain"],
  "runtime-face": ["runtime-errors", "db", ...LEAVES],
  edge: ["runtime-face", ...LEAVES],
  api: ["runtime-face", "edge", "auth", "agents", "harbor", ...LEAVES],
  transport: ["runtime-face", "edge", "auth", "harbor", ...LEAVES],
  oauth: ["runtime-face", "edge", "auth", "db", "harbor", ...LEAVES],
  auth: ["runtime-face", "db", "harbor", ...LEAVES],
  agents: ["runtime-face", ...LEAVES],
  a2a: ["runtime-face", ...LEAVES],
  mcp: ["runtime-face", ...LEAVES],
  peers: ["db", ...LEAVES],
  ops: ["runtime-face", "db", ...LEAVES],
  harbor: ["runtime-face", "db", "auth", "agents", "oauth", "a2a", "mcp", "peers", "ops", ...LEAVES],
  // The AG-UI endpoint is served in front of Next's router (ops/answer-first.ts): the lifecycle hands it over.
  lifecycle: ["harbor", "ops", "transport", ...LEAVES],
};

/** The server's single-file parts (server/<name>.ts); the other parts are folders. */
const ROOT_FILES = new Set(["config", "log", "instance-id", "harbor", "lifecycle"]);
const RUNTIME_FILES = { "runtime-face": "index.ts", "runtime-errors": "errors.ts" };

/** The selector of a part of the server by its name in SERVER_ALLOWS. */
function part(name) {
  if (name in RUNTIME_FILES) return { type: "runtime", fileInternalPath: RUNTIME_FILES[name] };
  if (ROOT_FILES.has(name)) return { type: "server-root", fileInternalPath: `${name}.ts` };
  return { type: "server-part", captured: { part: name } };
}
const to = (names) => names.map((name) => ({ to: { element: part(name) } }));

export const layers = {
  plugins: { boundaries },
  settings: {
    "import/resolver": { typescript: { project: "./tsconfig.json" } },
    "boundaries/include": ["app/**/*", "components/**/*", "server/**/*"],
    "boundaries/ignore": ["server/db/migrations/**"],
    // The first descriptor that matches a file decides its element: rooms before the runtime's own files.
    "boundaries/elements": [
      { type: "runtime-room", pattern: "server/runtime/*", capture: ["room"] },
      { type: "runtime", pattern: "server/runtime" },
      { type: "server-part", pattern: "server/*", capture: ["part"] },
      { type: "server-root", pattern: "server" },
      { type: "app", pattern: "app" },
      { type: "components", pattern: "components" },
    ],
  },
  rules: {
    "boundaries/no-unknown-files": "error",
    "boundaries/dependencies": [
      "error",
      {
        default: "disallow",
        message:
          "{{from.type}} {{from.captured.part}}{{from.captured.room}} may not import {{to.type}} {{to.captured.part}}{{to.captured.room}} {{to.fileInternalPath}} (docs/architecture.md, Layers)",
        policies: [
          // Within one part, room or the app anything goes.
          {
            from: { element: { type: "server-part" } },
            allow: { to: { element: { type: "server-part", captured: { part: "{{from.captured.part}}" } } } },
          },
          {
            from: { element: { type: "runtime-room" } },
            allow: { to: { element: { type: "runtime-room", captured: { room: "{{from.captured.room}}" } } } },
          },
          { from: { element: { type: "app" } }, allow: { to: { element: { type: "app" } } } },
          { from: { element: { type: "components" } }, allow: { to: { element: { type: "components" } } } },
          // A runtime room imports the rooms below it through their index.ts, the runtime's errors, db and the leaves.
          ...Object.entries(ROOMS_BELOW).map(([room, below]) => ({
            from: { element: { type: "runtime-room", captured: { room } } },
            allow: [
              ...below.map((b) => ({ to: { element: { type: "runtime-room", captured: { room: b }, fileInternalPath: "index.ts" } } })),
              ...to(["runtime-errors", "db", ...LEAVES]),
            ],
          })),
          ...Object.entries(SERVER_ALLOWS).map(([name, allowed]) => ({ from: { element: part(name) }, allow: to(allowed) })),
          // The face wires the rooms together, through their index.ts.
          { from: { element: part("runtime-face") }, allow: { to: { element: { type: "runtime-room", fileInternalPath: "index.ts" } } } },
          // The app composes everything at the edge; components render what the API gives them.
          {
            from: { element: { type: "app" } },
            allow: [
              { to: { element: { type: "components" } } },
              ...to(["runtime-face", "api", "auth", "edge", "transport", "oauth", "harbor", "ops", ...LEAVES]),
            ],
          },
          { from: { element: { type: "components" } }, allow: to(["domain", "api"]) },
        ],
      },
    ],
  },
};
