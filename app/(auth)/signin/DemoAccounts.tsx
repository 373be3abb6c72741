"use client";

import type { DemoAccount } from "./demo-accounts";

/**
 * The demo's accounts. With `onPick`, each is a button that fills the sign-in form with it — a
 * newcomer clicks "bob@acme.test" instead of retyping it; without, a plain list (password sign-in off).
 */
export function DemoAccounts({
  accounts,
  onPick,
  footnote,
}: {
  accounts: readonly DemoAccount[];
  onPick?: (account: DemoAccount) => void;
  footnote: string;
}) {
  return (
    <details className="group rounded-xl border bg-card px-4 py-3 text-sm" data-testid="demo-accounts">
      <summary className="cursor-pointer rounded font-medium text-muted-foreground select-none hover:text-foreground">
        Demo accounts
      </summary>
      {onPick ? <p className="mt-2 text-xs text-muted-foreground">Choose one to fill in the form.</p> : null}
      <ul className="mt-2 grid gap-1 text-muted-foreground">
        {accounts.map((account) => (
          <li key={account.email}>
            {onPick ? (
              <button
                type="button"
                onClick={() => onPick(account)}
                className="-mx-2 flex w-[calc(100%+1rem)] min-h-9 items-center justify-between gap-3 rounded-md px-2 py-1 text-left hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
              >
                <code className="text-foreground">{account.email}</code>
                <span className="text-xs">{account.role}</span>
              </button>
            ) : (
              <span className="flex flex-wrap items-baseline justify-between gap-x-3 py-1">
                <code>{account.email}</code>
                <span className="text-xs">{account.role}</span>
              </span>
            )}
          </li>
        ))}
      </ul>
      <p className="mt-2 text-xs text-muted-foreground">{footnote}</p>
    </details>
  );
}
