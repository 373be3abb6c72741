import { healthSource } from "@/server/harbor";
import { livenessAnswer } from "@/server/ops/health";

export const dynamic = "force-dynamic";

/** Alive (server/ops/health.ts). `next start` answers it before this route (server/ops/answer-first.ts). */
export function GET() {
  const { status, body, headers } = livenessAnswer(healthSource());
  return Response.json(body, { status, headers });
}
