import { ShieldAlertIcon } from "lucide-react";
import { Suspense } from "react";
import { PageMessage } from "@/components/PageMessage";
import { Console } from "@/components/console/Console";
import { listInput, runFilters } from "@/components/console/runFilters";
import { serverApi } from "@/server/api/server-caller";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

export default async function ConsolePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const identity = await requireIdentity("/console");
  if (!hasRole(identity, "admin")) {
    return (
      <PageMessage icon={ShieldAlertIcon} title="Admins only" testId="console-forbidden">
        The operator console is for your organisation&apos;s admins.
      </PageMessage>
    );
  }
  // The list for the URL's filters comes with the page, so it shows without a second round trip;
  // from then on the console keeps it live. (The filters live in the URL: useSearchParams.)
  const params = await searchParams;
  const input = listInput(runFilters((key) => (typeof params[key] === "string" ? params[key] : undefined)));
  const runs = await (await serverApi()).runs.list(input);
  return (
    <Suspense>
      <Console initial={{ input, runs }} />
    </Suspense>
  );
}
