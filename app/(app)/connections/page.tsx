import { Connections } from "@/components/connections/Connections";
import { requireIdentity } from "@/server/auth/session";

export const dynamic = "force-dynamic";

export default async function ConnectionsPage() {
  await requireIdentity("/connections");
  return <Connections />;
}
