/**
 * The notify room: who is told of interactions — inboxes here (and, through the cluster bridge,
 * changes made on other instances), decision links, and outgoing webhooks. It stands on every
 * room below it.
 */
import { bridgeCluster } from "../cluster";
import { countedListeners, createWebhookWorker } from "../notify";
import { decisionLinkService, interactionService } from "../pause";
import type { RuntimeDeps } from "./deps";
import type { ClusterRoom } from "./cluster";
import type { LogRoom } from "./log";
import type { PauseRoom } from "./pause";
import type { RunsRoom } from "./runs";

export function composeNotify(
  deps: RuntimeDeps,
  below: { instanceId: string; log: LogRoom; pause: PauseRoom; cluster: ClusterRoom; runs: RunsRoom },
) {
  const { coordinator } = below.pause;
  const { signals } = below.cluster;
  const { runs } = below.runs;
  // The inboxes' view of interaction changes: the webhook worker's listener (below) is no inbox, and
  // the cluster bridge reads other instances' changes only while an inbox watches here.
  const inboxes = countedListeners(coordinator.onChange);
  if (signals)
    bridgeCluster({
      db: deps.db,
      log: deps.log,
      bus: below.log.bus,
      signals,
      announce: coordinator.announce,
      watchingInboxes: inboxes.watching,
    });
  const interactions = interactionService(deps.db, runs.resolveInteractions, inboxes.onChange, below.log.subscriptions, deps.serverSecret);
  const decisionLinks = decisionLinkService({
    db: deps.db,
    serverSecret: deps.serverSecret,
    publicUrl: deps.publicUrl,
    getInteraction: interactions.get,
    resolve: runs.resolveInteractions,
  });
  const webhookWorker = createWebhookWorker({
    db: deps.db,
    log: deps.log,
    instanceId: below.instanceId,
    serverSecret: deps.serverSecret,
    settings: deps.webhooks,
    prepare: decisionLinks.prepare,
  });
  // A pause changed here (its webhook messages are committed with it): deliver them now, not at the next poll.
  coordinator.onChange((change) => webhookWorker.kick(change.tenantId));
  return { interactions, decisionLinks, webhookWorker };
}

export type NotifyRoom = ReturnType<typeof composeNotify>;
