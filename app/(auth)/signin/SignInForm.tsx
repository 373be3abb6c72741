"use client";

import { useActionState, useRef } from "react";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { Field, Input } from "@/components/ui/Input";
import { signInAction, type SignInState } from "./actions";
import { DEMO_PASSWORD, type DemoAccount } from "./demo-accounts";
import { DemoAccounts } from "./DemoAccounts";

export function SignInForm({
  callbackUrl,
  demo,
}: {
  callbackUrl: string;
  /** The demo seed's accounts, offered below the form to fill it in; absent outside the demo. */
  demo?: { accounts: readonly DemoAccount[]; footnote: string };
}) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signInAction, {});
  const email = useRef<HTMLInputElement>(null);
  const password = useRef<HTMLInputElement>(null);
  const submit = useRef<HTMLButtonElement>(null);

  // The inputs stay uncontrolled (the form posts what they hold); a pick writes into them and
  // moves focus to "Sign in", so Enter or a tap signs in with the account just chosen.
  function fill(account: DemoAccount) {
    if (email.current) email.current.value = account.email;
    if (password.current) password.current.value = DEMO_PASSWORD;
    submit.current?.focus();
  }

  return (
    <div className="grid gap-5">
      <form action={action} className="grid gap-4">
        <input type="hidden" name="callbackUrl" value={callbackUrl} />
        <Field label="Email">
          <Input
            ref={email}
            name="email"
            type="email"
            autoComplete="username"
            required
            autoFocus
            defaultValue={state.email}
            key={state.email}
          />
        </Field>
        <Field label="Password">
          <Input ref={password} name="password" type="password" autoComplete="current-password" required />
        </Field>
        {state.error ? <ErrorAlert>{state.error}</ErrorAlert> : null}
        <Button ref={submit} type="submit" variant="primary" className="w-full" disabled={pending}>
          {pending ? "Signing in…" : "Sign in"}
        </Button>
      </form>
      {demo ? <DemoAccounts accounts={demo.accounts} footnote={demo.footnote} onPick={fill} /> : null}
    </div>
  );
}
