"use client";

import { CheckIcon, CopyIcon, HistoryIcon, LinkIcon, LockIcon, MessagesSquareIcon, ScrollTextIcon, type LucideIcon } from "lucide-react";
import { useRef, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/Button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/Card";
import { Input } from "@/components/ui/Input";
import { relative } from "./format";
import { count, dayOf, fromNow, shortHash, timeOf, type RetentionView } from "./retentionText";

/**
 * What the next sweep will delete, in sentences: when it comes, how many conversations and audit
 * rows (counted now), where the audit chain enters once its oldest rows went, and the last sweep.
 */
export function RetentionSweep({ view, now }: { view: RetentionView; now: number }) {
  const due = fromNow(view.nextSweepAt, now);
  const at = <time dateTime={view.nextSweepAt}>{timeOf(view.nextSweepAt, now)}</time>;
  // How a sentence about what will go begins: when it goes.
  const lead = due ? (
    <>
      At {at} ({due}),
    </>
  ) : (
    "Any moment now,"
  );
  const { conversations, audit } = view.next;
  const anyDue = (conversations?.count ?? 0) > 0 || (audit?.rows ?? 0) > 0;
  return (
    <Card data-testid="retention-sweep">
      <CardHeader>
        <CardTitle>Next sweep</CardTitle>
        <CardDescription>
          {/* The time is said once: in the sentences when something is due, else here. */}
          {anyDue ? (
            "What it will delete, counted now."
          ) : due ? (
            <>
              It runs at {at} ({due}); what it will delete is counted now.
            </>
          ) : (
            "It runs any moment now; what it will delete is counted now."
          )}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="grid gap-4">
          <Line
            icon={MessagesSquareIcon}
            testId="sweep-conversations"
            note={
              view.oldestConversationAt ? (
                <>
                  The oldest was last active on <time dateTime={view.oldestConversationAt}>{dayOf(view.oldestConversationAt, now)}</time>.
                </>
              ) : null
            }
          >
            {conversations === null ? (
              "Conversations are kept forever."
            ) : conversations.count === 0 ? (
              <>Nothing is due: no conversation has gone untouched since {dayOf(conversations.before, now)}.</>
            ) : (
              <>
                {lead} <strong className="font-semibold">{count(conversations.count, "conversation")}</strong> untouched since{" "}
                {dayOf(conversations.before, now)} will be deleted.
              </>
            )}
          </Line>
          <Line icon={ScrollTextIcon} testId="sweep-audit">
            {audit === null ? (
              "Audit rows are kept forever."
            ) : audit.rows === 0 ? (
              <>Nothing is due: no audit row dates from before {dayOf(audit.before, now)}.</>
            ) : (
              <>
                {lead} <strong className="font-semibold">{count(audit.rows, "audit row")}</strong> from before {dayOf(audit.before, now)}{" "}
                will be deleted.
              </>
            )}
          </Line>
          {view.auditAnchor ? <AnchorLine anchor={view.auditAnchor} /> : null}
          <Line icon={LockIcon} testId="sweep-held">
            <span className="text-muted-foreground">
              A conversation whose run is still queued, running or waiting for an answer is never deleted.
            </span>
          </Line>
          <Line icon={HistoryIcon} testId="sweep-last">
            <span className="text-muted-foreground">
              {view.lastSweepAt ? (
                <>
                  Last sweep at <time dateTime={view.lastSweepAt}>{timeOf(view.lastSweepAt, now)}</time> ({relative(view.lastSweepAt, now)}
                  ).
                </>
              ) : (
                "No sweep has run yet."
              )}
            </span>
          </Line>
        </ul>
      </CardContent>
    </Card>
  );
}

/** One sentence of the card (what the tests read), with an icon and an optional smaller note under it. */
function Line({ icon: Icon, testId, note, children }: { icon: LucideIcon; testId: string; note?: ReactNode; children: ReactNode }) {
  return (
    <li className="flex items-start gap-3 text-sm">
      <Icon className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
      <div className="min-w-0 flex-1">
        <div data-testid={testId}>{children}</div>
        {note ? <p className="mt-0.5 text-xs text-muted-foreground">{note}</p> : null}
      </div>
    </li>
  );
}

/** Where the audit chain enters now, with the full hash a copy away (selected in a field when there is no clipboard). */
function AnchorLine({ anchor }: { anchor: NonNullable<RetentionView["auditAnchor"]> }) {
  const [copied, setCopied] = useState(false);
  const [fallback, setFallback] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(anchor.hash);
      setCopied(true);
    } catch {
      // No clipboard (an insecure page, a refused permission): the hash in a field, selected for the keyboard's copy.
      setFallback(true);
      requestAnimationFrame(() => field.current?.select());
    }
  };
  return (
    <Line icon={LinkIcon} testId="sweep-anchor">
      <p>
        The audit chain now starts after row {anchor.seq.toLocaleString("en")}; its hash{" "}
        <code className="[overflow-wrap:anywhere]" title={anchor.hash}>
          {shortHash(anchor.hash)}
        </code>{" "}
        is what a verified export must enter with.
      </p>
      <div className="mt-2 flex min-w-0 flex-wrap items-center gap-2">
        <Button variant="secondary" size="sm" onClick={() => void copy()} aria-label={copied ? "Hash copied" : "Copy the full hash"}>
          {copied ? <CheckIcon aria-hidden="true" /> : <CopyIcon aria-hidden="true" />}
          {copied ? "Copied" : "Copy hash"}
        </Button>
        {fallback ? (
          <Input
            ref={field}
            readOnly
            aria-label="The anchor's full hash"
            value={anchor.hash}
            className="min-w-0 flex-1 font-mono text-xs sm:text-xs"
            onFocus={(e) => e.currentTarget.select()}
          />
        ) : null}
      </div>
      <p role="status" className="sr-only">
        {copied ? "The hash is on your clipboard." : ""}
      </p>
    </Line>
  );
}
