import { DownloadIcon } from "lucide-react";
import { Button } from "@/components/ui/Button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/Card";
import { Field, Input, Select } from "@/components/ui/Input";

const day = (date: Date) => date.toISOString().slice(0, 10);

/**
 * The audit export as a plain form: the browser downloads `/api/audit/export` (the session's cookie
 * authenticates it), so it works without JavaScript.
 */
export function AuditExport({ maxDays }: { maxDays: number }) {
  const today = new Date();
  const monthAgo = new Date(today.getTime() - 30 * 86_400_000);
  return (
    <Card className="w-full max-w-lg">
      <CardHeader>
        <CardTitle level={1}>Export audit</CardTitle>
        <CardDescription>
          Your organisation&apos;s audit log, each row chained to the one before by its hash. Check a JSON Lines or CSV file with{" "}
          <code>node scripts/verify-audit.mjs &lt;file&gt;</code>.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form method="get" action="/api/audit/export" className="grid gap-4 pt-4" data-testid="audit-export">
          <div className="grid items-start gap-4 sm:grid-cols-2">
            <Field label="From (UTC day)">
              <Input type="date" name="from" required defaultValue={day(monthAgo)} />
            </Field>
            <Field label="To (UTC day, included)" hint={`At most ${maxDays} days.`}>
              <Input type="date" name="to" required defaultValue={day(today)} />
            </Field>
          </div>
          <Field label="Format">
            <Select name="format" defaultValue="jsonl">
              <option value="jsonl">JSON Lines (.jsonl)</option>
              <option value="csv">CSV (.csv)</option>
            </Select>
          </Field>
          <Button type="submit" variant="primary" className="justify-self-start">
            <DownloadIcon aria-hidden="true" />
            Download
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
