/**
 * The owner's side of routing: forwarded requests are taken, decided here as if they had arrived
 * here, and answered in their row. Once this instance stops serving, the requests it never took go
 * back to their senders.
 */
import { answerRoutedRequest, returnUntakenRoutedRequests, takeRoutedRequest, untakenRoutedRequests } from "@/server/db/queries/routing";
import { asHarborError } from "../errors";
import { RETURNED, RoutedRequest, type RoutedReply } from "./routed-request";
import type { RouterContext } from "./router-context";

async function serve({ deps }: RouterContext, id: string): Promise<void> {
  const row = await takeRoutedRequest(deps.db, id, deps.instanceId);
  if (!row) return;
  let reply: RoutedReply;
  try {
    const request = RoutedRequest.parse(JSON.parse(deps.sealer.open(row.sealed, id)));
    reply = { ok: await deps.handle(request) };
  } catch (thrown) {
    const error = asHarborError(thrown);
    // This instance is stopping and did nothing with it: its sender decides it itself.
    reply = error.code === "INSTANCE_STOPPING" ? RETURNED : { error: { code: error.code, message: error.message, details: error.details } };
  }
  await answerRoutedRequest(deps.db, id, reply);
}

/** Serves request `id` unless this instance no longer serves; `close` waits for it. */
export function serveOnce(router: RouterContext, id: string): void {
  if (router.closed) return;
  const served = serve(router, id)
    .catch((error: unknown) => router.deps.log.error({ err: error, requestId: id }, "a forwarded request could not be answered"))
    .finally(() => router.serving.delete(served));
  router.serving.add(served);
}

/** Requests sent here while the listening connection was down: their notifications were lost. */
export function serveUntaken(router: RouterContext): void {
  const { deps } = router;
  void untakenRoutedRequests(deps.db, deps.instanceId)
    .then((ids) => ids.forEach((id) => serveOnce(router, id)))
    .catch((error: unknown) => deps.log.warn({ err: error }, "could not look for forwarded requests after a reconnect"));
}

/**
 * Stops serving forwarded requests (the instance is stopping): those being served finish, and
 * those not yet taken go back to their senders, which decide them themselves.
 */
export async function closeRouter(router: RouterContext): Promise<void> {
  router.closed = true;
  while (router.serving.size > 0) await Promise.allSettled([...router.serving]);
  const returned = await returnUntakenRoutedRequests(router.deps.db, router.deps.instanceId, RETURNED);
  if (returned > 0) router.deps.log.info({ returned }, "gave forwarded requests back to their senders");
}
