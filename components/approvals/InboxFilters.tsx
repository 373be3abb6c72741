"use client";

import { SlidersHorizontalIcon, XIcon } from "lucide-react";
import { useState } from "react";
import { PAUSE_REASON_LIST, REASON_LABELS } from "@/components/interactions/reasons";
import { useToolCatalog } from "@/components/interactions/tools";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { Select } from "@/components/ui/Input";
import type { Pause, Reason } from "./queue";

export interface Filters {
  reason: Reason | "";
  tool: string;
  requester: string;
}

const REASONS = new Set<string>(PAUSE_REASON_LIST);
const isReason = (value: string): value is Reason => REASONS.has(value);

/**
 * The inbox's filters, folded behind one button: three selects side by side do not fit a narrow
 * list. Choices come from the requests `seen`; `byRequester` is off for a member (only their own).
 */
export function InboxFilters({
  filters,
  seen,
  byRequester,
  onChange,
}: {
  filters: Filters;
  seen: Pause[];
  byRequester: boolean;
  onChange(next: Filters): void;
}) {
  const catalog = useToolCatalog();
  const [open, setOpen] = useState(false);
  const active = [filters.reason, filters.tool, filters.requester].filter(Boolean).length;
  const tools = [...new Set(seen.flatMap((i) => (i.tool ? [i.tool.name] : [])))].sort();
  const requesters = [...new Map(seen.map((i) => [i.requester.id, i.requester.name ?? i.requester.email ?? i.requester.id])).entries()];
  return (
    <>
      <div className="flex flex-wrap items-center gap-2">
        <Button
          size="sm"
          variant="ghost"
          className="-ml-2"
          aria-expanded={open}
          aria-controls="inbox-filters"
          onClick={() => setOpen((was) => !was)}
          data-testid="filters-toggle"
        >
          <SlidersHorizontalIcon aria-hidden="true" />
          Filters
          {active > 0 ? (
            <span className="rounded-full bg-primary px-1.5 text-xs leading-5 text-primary-foreground tabular-nums">
              {active}
              <span className="sr-only"> active</span>
            </span>
          ) : null}
        </Button>
        {active > 0 ? (
          <Button size="sm" variant="ghost" onClick={() => onChange({ reason: "", tool: "", requester: "" })}>
            <XIcon aria-hidden="true" />
            Clear filters
          </Button>
        ) : null}
      </div>
      <div id="inbox-filters" className={cn("gap-2", open ? "grid" : "hidden")} data-testid="inbox-filters">
        <FilterSelect
          label="Reason"
          value={filters.reason}
          onChange={(value) => onChange({ ...filters, reason: isReason(value) ? value : "" })}
          options={[["", "All reasons"], ...PAUSE_REASON_LIST.map((r): [string, string] => [r, REASON_LABELS[r]])]}
        />
        <FilterSelect
          label="Tool"
          value={filters.tool}
          onChange={(value) => onChange({ ...filters, tool: value })}
          options={[["", "All tools"], ...tools.map((t): [string, string] => [t, catalog.title(t)])]}
        />
        {/* A member's inbox holds only their own requests: nobody else to filter by. */}
        {byRequester ? (
          <FilterSelect
            label="Requester"
            value={filters.requester}
            onChange={(value) => onChange({ ...filters, requester: value })}
            options={[["", "Everyone"], ...requesters]}
          />
        ) : null}
      </div>
    </>
  );
}

/** One labelled filter of the list: `options` are `[value, label]` pairs. */
function FilterSelect({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly (readonly [string, string])[];
}) {
  return (
    <label className="grid grid-cols-[5.5rem_minmax(0,1fr)] items-center gap-2 text-xs font-medium text-muted-foreground">
      {label}
      <Select
        aria-label={`Filter by ${label.toLowerCase()}`}
        value={value}
        className="h-8 px-2 text-sm text-foreground sm:text-sm"
        onChange={(e) => onChange(e.target.value)}
      >
        {options.map(([optionValue, optionLabel]) => (
          <option key={optionValue} value={optionValue}>
            {optionLabel}
          </option>
        ))}
      </Select>
    </label>
  );
}
