import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Binds `server` on 127.0.0.1 (`port` 0: one the system picks) and answers its base URL. Peers
 * listen before they are built, because what they publish (an issuer, an agent card) names the port.
 */
export async function listenOnLoopback(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
