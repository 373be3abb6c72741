/**
 * Next.js calls `register` once when the server starts. Everything lives in a Node-only module
 * (`server/lifecycle.ts`), loaded only on the Node.js runtime of a serving process.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // `next build` loads this too, in the workers that prerender pages: a build must not open the
  // database or start the demo's peers (it would cost seconds, and lock the embedded folder).
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const { start } = await import("./server/lifecycle");
  await start();
}
