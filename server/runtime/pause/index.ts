/**
 * The face of runtime/pause: the coordinator (the one pause primitive), interactions as people see
 * them, and decision links. See README.md.
 */
export {
  APPROVAL_RESPONSE_SCHEMA,
  ApprovalAnswer,
  type Coordinator,
  createCoordinator,
  HeldElsewhere,
  type InteractionChange,
  type ReadyRun,
  type ResolutionInput,
  type ResolveVia,
} from "./coordinator";
export { resumeTokenKey } from "./resume-token";
export { type InteractionQuery, interactionService, type InteractionView } from "./interactions";
export { DECISION_LINK_PATH, type DecisionLink, decisionLinkService, type LinkDecision, type LinkState } from "./decision-links";
