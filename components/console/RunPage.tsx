"use client";

import { ArrowLeftIcon } from "lucide-react";
import Link from "next/link";
import { RunDetail } from "./RunDetail";

/** One run on a page of its own: its facts, the instructions that apply, and its full timeline, live. */
export function RunPage({ runId }: { runId: string }) {
  return (
    <div className="min-h-0 flex-1 overflow-y-auto">
      <div className="mx-auto grid max-w-4xl gap-3 p-3 sm:p-6">
        <Link
          href="/console"
          className="inline-flex items-center gap-1.5 justify-self-start text-sm text-primary underline-offset-2 hover:underline"
        >
          <ArrowLeftIcon className="size-4" aria-hidden="true" />
          All runs
        </Link>
        <RunDetail runId={runId} standalone />
      </div>
    </div>
  );
}
