import type { ReactNode } from "react";
import { ConsoleNav } from "@/components/console/ConsoleNav";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

/** Every console page under one row of links: the pages the viewer may open (members: their model budget). */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const identity = await requireIdentity();
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <ConsoleNav admin={hasRole(identity, "admin")} />
      {children}
    </div>
  );
}
