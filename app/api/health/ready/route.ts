import { healthSource } from "@/server/harbor";
import { readinessAnswer } from "@/server/ops/health";

export const dynamic = "force-dynamic";

/** Ready to serve (server/ops/health.ts). `next start` answers it before this route (server/ops/answer-first.ts). */
export function GET() {
  const { status, body, headers } = readinessAnswer(healthSource());
  return Response.json(body, { status, headers });
}
