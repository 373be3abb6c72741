import { SearchXIcon } from "lucide-react";
import { PageMessage } from "@/components/PageMessage";

export default function NotFound() {
  return (
    <div className="flex flex-1 flex-col">
      <PageMessage icon={SearchXIcon} title="Not found">
        There is nothing here for you — it may not exist, or it belongs to someone else.
      </PageMessage>
    </div>
  );
}
