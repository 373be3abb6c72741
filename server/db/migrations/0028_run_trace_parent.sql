ALTER TABLE "runs" ADD COLUMN "trace_parent" text;
