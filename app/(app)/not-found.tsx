import { SearchXIcon } from "lucide-react";
import { PageMessage } from "@/components/PageMessage";

/** A record of the signed-in app that is missing or not the viewer's: inside the app's header and main. */
export default function NotFound() {
  return (
    <PageMessage icon={SearchXIcon} title="Not found" testId="not-found">
      There is nothing here for you — it may not exist, or it belongs to someone else.
    </PageMessage>
  );
}
