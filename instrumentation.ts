/**
 * Next.js calls `register` once when the server starts: open the database and run the migrations
 * now, so a misconfiguration (or a second process on the embedded database's folder) stops the
 * server at once with a clear message instead of failing its first request.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { harbor } = await import("./server/harbor");
  const { log } = await import("./server/log");
  try {
    await harbor();
  } catch (error) {
    log.fatal({ err: error }, `Harbor cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
