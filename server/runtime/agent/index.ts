/**
 * The face of runtime/agent: what an agent is (planner, tools, tool context) and the shapes a run
 * and a pause share. See README.md.
 */
export { type RunState, type TranscriptMessage } from "./state";
export {
  type AgentDefinition,
  type AgentRegistry,
  type ModelPart,
  type PlannedCall,
  type Planner,
  type PlannerContext,
  type PlannerDecision,
} from "./planner";
export {
  type ClientToolDefinition,
  type DeadlinePolicy,
  type ExternalToolDefinition,
  type GateSpan,
  type GrantableField,
  type JobProgress,
  privateInputTool,
  type PrivateInputToolDefinition,
  type RemoteAgentPort,
  type RemoteAgentResult,
  type RemoteAgentToolDefinition,
  type RemoteOutcome,
  type RemoteSend,
  type Resolution,
  type ServerToolDefinition,
  tool,
  type ToolContext,
  type ToolDefinition,
  type ToolRegistry,
} from "./tools";
export {
  formSchema,
  McpFormDecline,
  type McpCallOutcome,
  type McpCallRequest,
  type McpElicitAnswer,
  type McpLiveCall,
  type McpProgress,
  type McpToolDefinition,
  type McpToolPort,
  type McpToolResult,
} from "./mcp-tools";
export { assignCallIds, modelIdOf } from "./tool-call-ids";
export { bindingOf, canonicalJson, stillBinds, toolVersion, toolVersions } from "./binding";
export { type Parking, type PauseRequest, RemoteAuthAnswer, RemoteInputAnswer, type ResumeInput } from "./parking";
export { assertPlainJson, CredentialRejectedSignal, HandleRegistry, PauseSignal } from "./tool-context";
