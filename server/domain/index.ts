/**
 * Harbor's domain vocabulary: statuses, kinds, reasons, events, checkpoints, error codes and the
 * names Harbor puts on the wire. Depends on nothing but zod; every layer imports it.
 */
export * from "./vocabulary";
export * from "./errors";
export * from "./events";
export * from "./checkpoint";
export * from "./steering";
export * from "./text";
export * from "./wire";
export * from "./grants";
export * from "./credentials";
export * from "./interaction-kinds";
export * from "./mcp";
