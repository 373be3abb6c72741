import { AnchorIcon } from "lucide-react";
import { redirect } from "next/navigation";
import { ErrorAlert } from "@/components/ui/Alert";
import { Card } from "@/components/ui/Card";
import { currentIdentity } from "@/server/auth/session";
import { safeReturnPath } from "@/server/auth/return-path";
import { ssoProvider } from "@/server/auth/sso/provider";
import { signInErrorSentence } from "@/server/auth/sso/refusals";
import { settings } from "@/server/config";
import { demoAccounts } from "./demo-accounts";
import { DemoAccounts } from "./DemoAccounts";
import { SignInForm } from "./SignInForm";
import { SsoButton } from "./SsoButton";

export const dynamic = "force-dynamic";

type SearchParams = Promise<{ callbackUrl?: string | string[]; error?: string | string[] }>;

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const returnTo = safeReturnPath(params.callbackUrl);
  if (await currentIdentity()) redirect(returnTo);
  const sso = await ssoProvider();
  const { passwordSignIn: password, seedDemo } = settings();
  // Auth.js and single sign-on come back here with `?error=<code>`: a fixed sentence per code, never the query's words.
  const demo = seedDemo ? demoAccounts(Boolean(sso?.demo)) : undefined;
  const error = signInErrorSentence(typeof params.error === "string" ? params.error : undefined, sso?.name ?? "single sign-on");
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
        <Card className="grid gap-5 p-6">
          {error ? <ErrorAlert data-testid="sign-in-error">{error}</ErrorAlert> : null}
          {sso ? <SsoButton name={sso.name} callbackUrl={returnTo} primary={!password} /> : null}
          {sso && password ? (
            <div className="flex items-center gap-3 text-xs text-muted-foreground" aria-hidden="true">
              <span className="h-px flex-1 bg-border" />
              or with your password
              <span className="h-px flex-1 bg-border" />
            </div>
          ) : null}
          {password ? <SignInForm callbackUrl={returnTo} demo={demo} /> : null}
        </Card>
        {/* The demo's accounts exist only where the demo was seeded; with passwords on, the form lists them. */}
        {demo && !password ? (
          <div className="mt-4">
            <DemoAccounts accounts={demo.accounts} footnote={demo.footnote} />
          </div>
        ) : null}
      </div>
    </main>
  );
}
