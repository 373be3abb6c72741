/**
 * The public way to write an agent (README, "Writing an agent"): `defineTool` for each tool —
 * zod schemas for its input and output, its kind, the gate and OAuth it needs — and
 * `defineAgent` for the agent: a planner of its own, or a model that plans with the tools.
 * The runtime enforces what a tool declares (gates, schemas, private values kept out of every
 * record and every model request); a tool's code only does its work.
 */
import type { z } from "zod";
import type { MultitaskPolicy } from "@/server/domain";
import {
  privateInputTool,
  tool,
  type AgentDefinition,
  type AgentRegistry,
  type ClientToolDefinition,
  type JobProgress,
  type Planner,
  type PrivateInputToolDefinition,
  type RemoteAgentToolDefinition,
  type ServerToolDefinition,
  type ToolContext,
  type ToolDefinition,
} from "@/server/runtime";
import { languageModel, modelPlanner, type ModelSettings } from "./assistant/planner";

/** A tool Harbor runs (kind `server`, the default): `run` does the work once any gate let it through. */
export type ServerToolSpec<Input, Output> = Omit<ServerToolDefinition<Input, Output>, "execute" | "kind"> & {
  kind?: "server";
  run(args: Input, ctx: ToolContext): Promise<Output>;
};

/** Background work (kind `external`): `run` may run again after a crash, so it must be safe to repeat. */
export type ExternalToolSpec<Input, Output> = {
  kind: "external";
  name: string;
  title?: string;
  description: string;
  input: z.ZodType<Input>;
  output: z.ZodType<Output>;
  run(args: Input, progress: (step: JobProgress) => Promise<void>): Promise<Output>;
  /** The assistant's message once the work is done. */
  report(output: Output, args: Input): string;
};

export function defineTool<Input, Output>(spec: ServerToolSpec<Input, Output>): ToolDefinition;
export function defineTool<Input, Output>(spec: ExternalToolSpec<Input, Output>): ToolDefinition;
export function defineTool<Input, Output>(spec: ClientToolDefinition<Input, Output>): ToolDefinition;
export function defineTool<Input, Output, Form>(spec: PrivateInputToolDefinition<Input, Output, Form>): ToolDefinition;
export function defineTool<Input>(spec: RemoteAgentToolDefinition<Input>): ToolDefinition;
export function defineTool(
  spec:
    | ServerToolSpec<unknown, unknown>
    | ExternalToolSpec<unknown, unknown>
    | ClientToolDefinition
    | PrivateInputToolDefinition
    | RemoteAgentToolDefinition,
): ToolDefinition {
  assertToolName(spec.name);
  if (spec.kind === "client" || spec.kind === "remote_agent") return tool(spec);
  if (spec.kind === "private_input") return privateInputTool(spec);
  if (spec.kind === "external") {
    const { run, ...rest } = spec;
    return tool({ ...rest, work: run });
  }
  const { run, ...rest } = spec;
  return tool({ ...rest, execute: run });
}

/** What an agent is: its planner, or the model instructions a model plans with. */
export type AgentSpec = {
  id: string;
  name: string;
  description: string;
  tools: readonly ToolDefinition[];
  /** What a new message does while a run of the thread still executes (default `enqueue`). */
  multitask?: MultitaskPolicy;
  /** Bump it when the agent changes in a way its pending approvals must see again (default: a digest of its tools). */
  version?: string;
} & ({ planner: Planner; model?: never } | { model: { instructions: string }; planner?: never });

export function defineAgent(spec: AgentSpec): AgentSpec {
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(spec.id)) throw new Error(`An agent's id is lowercase letters, digits and dashes: "${spec.id}".`);
  const names = spec.tools.map((t) => t.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new Error(`Agent "${spec.id}" has two tools named "${twice}".`);
  return spec;
}

/**
 * The agents a server offers. A model-driven agent is served only when a model is configured
 * (HARBOR_MODEL_BASE_URL and HARBOR_MODEL); without one it does not exist (404).
 */
export function agentRegistry(specs: readonly AgentSpec[], model?: ModelSettings): AgentRegistry {
  const agents = new Map<string, AgentDefinition>();
  for (const spec of specs) {
    if (agents.has(spec.id)) throw new Error(`Two agents have the id "${spec.id}".`);
    const tools = new Map(spec.tools.map((t) => [t.name, t]));
    const planner = spec.planner
      ? spec.planner
      : model
        ? modelPlanner({
            model: languageModel(model),
            instructions: spec.model.instructions,
            tools,
            timeoutMs: model.timeoutMs,
            maxRetries: model.maxRetries,
            maxTokens: model.maxTokens,
            maxOutputChars: model.maxOutputChars,
          })
        : undefined;
    if (!planner) continue;
    agents.set(spec.id, {
      id: spec.id,
      name: spec.name,
      description: spec.description,
      planner,
      tools,
      ...(spec.multitask ? { multitask: spec.multitask } : {}),
      ...(spec.version ? { version: spec.version } : {}),
      // A model goes on from what background work found; a planner of one's own gets the tool's report.
      afterWork: spec.planner ? "report" : "continue",
      // A model can use whatever tools the tenant connected (MCP servers); a planner of one's own knows only its own.
      connectedTools: !spec.planner,
      ...(!spec.planner && model ? { model: { name: model.model, provider: "openai" } } : {}),
    });
  }
  return agents;
}

function assertToolName(name: string): void {
  // What OpenAI-compatible servers accept as a function name.
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) throw new Error(`A tool's name is 1–64 letters, digits, _ or -: "${name}".`);
}
