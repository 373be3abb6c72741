import { AnchorIcon } from "lucide-react";
import { redirect } from "next/navigation";
import { Card } from "@/components/ui/Card";
import { currentIdentity } from "@/server/auth/session";
import { safeReturnPath } from "@/server/auth/return-path";
import { SignInForm } from "./SignInForm";

export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string | string[] }> }) {
  const returnTo = safeReturnPath((await searchParams).callbackUrl);
  if (await currentIdentity()) redirect(returnTo);
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center bg-surface px-4 py-10">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex flex-col items-center gap-3 text-center">
          <span className="grid size-11 place-items-center rounded-xl bg-primary text-primary-foreground shadow-sm">
            <AnchorIcon className="size-6" aria-hidden="true" />
          </span>
          <div>
            <h1 className="text-2xl font-semibold tracking-tight">Sign in to Harbor</h1>
            <p className="mt-1 text-sm text-muted-foreground">Runs that pause, and resume once, for the right person.</p>
          </div>
        </div>
        <Card className="p-6">
          <SignInForm callbackUrl={returnTo} />
        </Card>
        <details className="group mt-4 rounded-xl border bg-card px-4 py-3 text-sm">
          <summary className="cursor-pointer rounded font-medium text-muted-foreground select-none hover:text-foreground">
            Demo accounts
          </summary>
          <ul className="mt-3 grid gap-1.5 text-muted-foreground">
            <li>
              <code>alice@acme.test</code> member
            </li>
            <li>
              <code>bob@acme.test</code> approver
            </li>
            <li>
              <code>carol@acme.test</code> admin
            </li>
            <li>
              <code>mallory@globex.test</code> admin of another tenant
            </li>
            <li className="mt-1">
              Password <code>harbor</code> for all of them.
            </li>
          </ul>
        </details>
      </div>
    </main>
  );
}
