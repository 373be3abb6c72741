/**
 * Next.js calls `register` once when the server starts: open the database and run the migrations
 * now, so a misconfiguration (or a second process on the embedded database's folder) stops the
 * server at once with a clear message instead of failing its first request. On SIGTERM/SIGINT the
 * process closes its database before it exits.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { harbor, shutdown } = await import("./server/harbor");
  const { log } = await import("./server/log");
  try {
    await harbor();
  } catch (error) {
    log.fatal({ err: error }, `Harbor cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const stop = (signal: NodeJS.Signals) => {
    log.info({ signal }, "shutting down");
    shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
