import { harbor } from "@/server/harbor";
import { log } from "@/server/log";

export const dynamic = "force-dynamic";

/** 200 with this instance's id once the database is open and migrated; 503 with the reason otherwise. */
export async function GET() {
  try {
    const h = await harbor();
    return Response.json({ ok: true, instance: h.runtime.instanceId });
  } catch (error) {
    log.error({ err: error }, "health check failed");
    // The reason is in the log; the answer does not reveal connection details.
    return Response.json({ ok: false, error: "The database is not available." }, { status: 503 });
  }
}
