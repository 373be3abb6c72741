/**
 * AG-UI version negotiation. A client says which protocol it speaks in `RunAgentInput.protocolVersion`;
 * Harbor declares its own in `RUN_STARTED.protocolVersion` (never an echo, so a client sees a
 * downgrade the moment it happens). A 1.x client of any minor is served with 1.x's outcomes; a
 * client that sends no version predates versioning (`@ag-ui/client` 0.0.59, which CopilotKit
 * pinned) and gets only what it knows; another major is refused before the run starts.
 */
import { PROTOCOL_VERSION } from "@ag-ui/core";
import { HarborError, InvalidInputError } from "@/server/runtime";

/** Who Harbor is talking to: a 1.x peer, or one from before the protocol carried a version. */
export type AguiPeer = "1.x" | "legacy";

/** The version Harbor speaks, as `MAJOR.MINOR`. */
export const HARBOR_AGUI_VERSION = PROTOCOL_VERSION;

const SERVED_MAJOR = Number(HARBOR_AGUI_VERSION.split(".")[0]);
const VERSION = /^(\d{1,4})\.(\d{1,4})(?:\.\d{1,4})?$/;

export function aguiPeerOf(protocolVersion: string | undefined): AguiPeer {
  if (protocolVersion === undefined) return "legacy";
  const match = VERSION.exec(protocolVersion);
  if (!match) throw new InvalidInputError("protocolVersion", "must be MAJOR.MINOR, such as 1.0");
  if (Number(match[1]) !== SERVED_MAJOR) {
    throw new HarborError("UNSUPPORTED_PROTOCOL", `Harbor speaks AG-UI ${HARBOR_AGUI_VERSION}; it cannot serve ${protocolVersion}.`, {
      field: "protocolVersion",
      supported: `${SERVED_MAJOR}.x`,
    });
  }
  return "1.x";
}
