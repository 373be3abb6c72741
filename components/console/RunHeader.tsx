"use client";

import { ExternalLinkIcon, MessagesSquareIcon } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { ReasonBadge } from "@/components/interactions/reasons";
import { ErrorAlert } from "@/components/ui/Alert";
import { Skeleton } from "@/components/ui/Skeleton";
import type { RouterOutputs } from "@/components/trpc/types";
import { duration, relative, tokens } from "./format";
import { RunStatusBadge } from "./RunStatusBadge";

type RunInfo = RouterOutputs["runs"]["get"];

const at = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });

/**
 * A run's header, as a history's summary reads: what started it (its own input), how it ended
 * (status, and the error when it failed), when, how long and how many tokens, and where its
 * conversation is. The console is for the tenant's admins, who may open any conversation of it
 * (audited); a helper run's conversation is its parent's, so it links to its parent run instead.
 */
export function RunHeader({
  runId,
  info,
  standalone,
  loadError,
}: {
  runId: string;
  info: RunInfo | undefined;
  standalone: boolean;
  loadError: string | null;
}) {
  const title = `Run ${runId.slice(0, 8)}`;
  return (
    <header className="grid gap-2">
      <div className="flex flex-wrap items-center gap-2">
        {standalone ? (
          <h1 className="font-mono text-lg font-semibold tracking-tight">{title}</h1>
        ) : (
          <h2 className="font-mono text-lg font-semibold tracking-tight">{title}</h2>
        )}
        {info ? <RunStatusBadge status={info.status} testId="run-status" /> : null}
        {info?.pauseReason ? <ReasonBadge reason={info.pauseReason} /> : null}
        {standalone ? null : (
          <Link
            href={`/console/runs/${encodeURIComponent(runId)}`}
            className="ml-auto inline-flex items-center gap-1 text-xs text-primary underline-offset-2 hover:underline"
          >
            Open run page
            <ExternalLinkIcon className="size-3.5" aria-hidden="true" />
          </Link>
        )}
      </div>
      {info ? (
        <>
          <figure className="grid gap-0.5" data-testid="run-input">
            <figcaption className="text-xs font-medium text-muted-foreground">Input</figcaption>
            <blockquote className="max-h-28 overflow-y-auto rounded-md border-l-2 border-primary bg-muted/50 px-2.5 py-1.5 text-sm whitespace-pre-wrap [overflow-wrap:anywhere]">
              {info.input ?? info.threadTitle ?? "No message of its own (started by its parent or a schedule)."}
            </blockquote>
          </figure>
          {info.goal ? (
            <p className="text-sm [overflow-wrap:anywhere]" data-testid="run-title">
              <span className="text-muted-foreground">Redirected to: </span>
              {info.goal}
            </p>
          ) : null}
          {info.error ? (
            <ErrorAlert data-testid="run-error">
              <span className="font-mono text-xs font-semibold">{info.error.code}</span> — {info.error.message}
            </ErrorAlert>
          ) : null}
          <p className="text-sm text-muted-foreground [overflow-wrap:anywhere]">
            {info.ownerName ?? info.ownerId} · {info.agentId} · priority {info.priority}
            {info.childCount ? ` · ${info.childCount} helper run${info.childCount === 1 ? "" : "s"}` : ""}
          </p>
          <dl className="flex flex-wrap gap-x-5 gap-y-1 text-xs text-muted-foreground" data-testid="run-facts">
            <Fact term="Started">
              <time dateTime={info.createdAt} title={at(info.createdAt)}>
                {relative(info.createdAt)}
              </time>
            </Fact>
            {info.finishedAt ? (
              <Fact term="Ended">
                <time dateTime={info.finishedAt} title={at(info.finishedAt)}>
                  {relative(info.finishedAt)}
                </time>
              </Fact>
            ) : null}
            <Fact term={info.finishedAt ? "Took" : "Running for"}>
              <span className="tabular-nums">{duration(info.createdAt, info.finishedAt)}</span>
            </Fact>
            <Fact term="Tokens">
              <span className="tabular-nums" data-testid="run-tokens">
                {tokens(info.usage.inputTokens)} in · {tokens(info.usage.outputTokens)} out
              </span>
            </Fact>
          </dl>
          <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
            {info.parentRunId ? (
              <Link
                href={`/console/runs/${encodeURIComponent(info.parentRunId)}`}
                className="text-primary underline underline-offset-2 hover:no-underline"
              >
                Helper of run {info.parentRunId.slice(0, 8)}
              </Link>
            ) : (
              <Link
                href={`/chat/${encodeURIComponent(info.threadId)}`}
                className="inline-flex items-center gap-1.5 text-primary underline underline-offset-2 hover:no-underline"
              >
                <MessagesSquareIcon className="size-4" aria-hidden="true" />
                Open conversation
              </Link>
            )}
          </p>
        </>
      ) : loadError ? (
        <ErrorAlert>Could not load the run: {loadError}</ErrorAlert>
      ) : (
        <div className="grid gap-2" role="status" aria-label="Loading the run">
          <Skeleton className="h-12 w-full" />
          <Skeleton className="h-4 w-48" />
        </div>
      )}
    </header>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex gap-1">
      <dt>{term}</dt>
      <dd className="text-foreground">{children}</dd>
    </div>
  );
}
