-- Edit-and-resend and Regenerate (README "Chat"): messages a rewind dropped from their conversation stay, marked with the thread's last position at that moment.
ALTER TABLE "messages" ADD COLUMN "superseded_at_position" bigint;
