import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "@/components/trpc/client";
import "./globals.css";

export const metadata: Metadata = {
  title: "Harbor",
  description: "An agent runtime whose runs pause and resume safely, once, for the right person.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col">
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
