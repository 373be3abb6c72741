/**
 * Next.js calls `register` once when the server starts. Everything lives in a Node-only module
 * (`server/lifecycle.ts`), loaded only on the Node.js runtime.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { start } = await import("./server/lifecycle");
  await start();
}
