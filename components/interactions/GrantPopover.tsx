"use client";

import { CheckCheckIcon } from "lucide-react";
import { Popover } from "radix-ui";
import { useId, useState } from "react";
import type { GrantChoice, GrantOffer } from "@/server/domain";
import { MAX_GRANT_HOURS } from "@/server/domain";
import { Button } from "@/components/ui/Button";
import { Input } from "@/components/ui/Input";

/** Hours offered first for an hours-scoped standing approval. */
const DEFAULT_HOURS = 8;

/**
 * "Allow from now on…" (approve and allow): approves the request and gives a standing approval — later calls within
 * the shown bounds pass without asking, for this conversation or for the next N hours. The bounds
 * are the gate's offer, in words; a cap (an amount) may be raised up to what the tool allows.
 */
export function GrantPopover({
  offer,
  disabled,
  onApprove,
}: {
  offer: Pick<GrantOffer, "summary" | "caps">;
  disabled: boolean;
  onApprove(grant: GrantChoice): void;
}) {
  const [open, setOpen] = useState(false);
  const [scope, setScope] = useState<GrantChoice["scope"]>("thread");
  const [hours, setHours] = useState(String(DEFAULT_HOURS));
  const [caps, setCaps] = useState<Record<string, string>>(() =>
    Object.fromEntries((offer.caps ?? []).map((c) => [c.field, String(c.approved)])),
  );
  const id = useId();
  const hoursValue = Number(hours);
  const hoursOk = Number.isInteger(hoursValue) && hoursValue >= 1 && hoursValue <= MAX_GRANT_HOURS;
  const capProblems = (offer.caps ?? []).flatMap((c) => {
    const v = Number(caps[c.field]);
    return Number.isFinite(v) && v >= c.approved && v <= c.limit ? [] : [c.field];
  });
  const valid = (scope === "thread" || hoursOk) && capProblems.length === 0;
  const submit = () => {
    if (!valid) return;
    const raised = (offer.caps ?? []).filter((c) => Number(caps[c.field]) !== c.approved);
    setOpen(false);
    onApprove({
      scope,
      ...(scope === "hours" ? { hours: hoursValue } : {}),
      ...(raised.length > 0 ? { caps: Object.fromEntries(raised.map((c) => [c.field, Number(caps[c.field])])) } : {}),
    });
  };
  return (
    <Popover.Root open={open} onOpenChange={setOpen}>
      <Popover.Trigger asChild>
        <Button variant="secondary" className="flex-1 sm:flex-none" disabled={disabled} data-testid="grant-open">
          <CheckCheckIcon aria-hidden="true" />
          {/* Not "Approve …": the plain Approve button keeps a name no other button contains. */}
          Allow from now on…
        </Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          align="end"
          side="bottom"
          sideOffset={6}
          collisionPadding={8}
          className="z-50 w-80 max-w-[calc(100vw-1rem)] animate-fade-in rounded-lg border bg-card p-4 text-sm text-foreground shadow-md"
          aria-labelledby={`${id}-title`}
          data-testid="grant-popover"
        >
          <form
            className="grid gap-3"
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
          >
            <div className="grid gap-1">
              <p id={`${id}-title`} className="font-medium">
                Approve and allow from now on
              </p>
              <p className="text-muted-foreground [overflow-wrap:anywhere]">
                Later requests for <span className="font-medium text-foreground">{offer.summary}</span> go ahead without asking. You can
                revoke this any time under Connections.
              </p>
            </div>
            <fieldset className="grid gap-2">
              <legend className="mb-1 font-medium">For how long</legend>
              <label className="flex cursor-pointer items-center gap-2">
                <input
                  type="radio"
                  name={`${id}-scope`}
                  value="thread"
                  checked={scope === "thread"}
                  onChange={() => setScope("thread")}
                  className="size-4 accent-primary"
                />
                This conversation
              </label>
              <div className="flex flex-wrap items-center gap-2">
                <label className="flex cursor-pointer items-center gap-2">
                  <input
                    type="radio"
                    name={`${id}-scope`}
                    value="hours"
                    checked={scope === "hours"}
                    onChange={() => setScope("hours")}
                    className="size-4 accent-primary"
                  />
                  The next
                </label>
                <Input
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={MAX_GRANT_HOURS}
                  value={hours}
                  onChange={(e) => {
                    setHours(e.target.value);
                    setScope("hours");
                  }}
                  aria-label="Hours"
                  aria-invalid={scope === "hours" && !hoursOk}
                  className="w-20"
                />
                <span>hours</span>
              </div>
              {scope === "hours" && !hoursOk ? (
                <p className="text-xs text-danger-fg" role="alert">
                  Between 1 and {MAX_GRANT_HOURS} hours.
                </p>
              ) : null}
            </fieldset>
            {(offer.caps ?? []).map((c) => (
              <div key={c.field} className="grid gap-1">
                <label htmlFor={`${id}-${c.field}`} className="font-medium">
                  Allow {c.field} up to
                </label>
                <Input
                  id={`${id}-${c.field}`}
                  type="number"
                  inputMode="decimal"
                  min={c.approved}
                  max={c.limit}
                  step="any"
                  value={caps[c.field] ?? ""}
                  onChange={(e) => setCaps((all) => ({ ...all, [c.field]: e.target.value }))}
                  aria-invalid={capProblems.includes(c.field)}
                  aria-describedby={`${id}-${c.field}-hint`}
                />
                <span id={`${id}-${c.field}-hint`} className="text-xs text-muted-foreground">
                  From {c.approved.toLocaleString("en-US")} (this request) to {c.limit.toLocaleString("en-US")}.
                </span>
              </div>
            ))}
            <div className="flex flex-wrap justify-end gap-2">
              <Popover.Close asChild>
                <Button variant="ghost" size="sm">
                  Cancel
                </Button>
              </Popover.Close>
              <Button type="submit" variant="primary" size="sm" disabled={!valid} data-testid="grant-confirm">
                Approve and allow
              </Button>
            </div>
          </form>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
