// A TCP link between one process and a peer that the fault suite can cut: partition() holds every
// byte either way (connections stay open, nothing arrives — a network partition, not a refusal),
// heal() delivers what was held and lets bytes through again, as TCP does after a partition heals.
import net from 'node:net';

export interface PartitionableLink {
  /** `127.0.0.1:<port>`: give it to the process instead of the peer's address. */
  address: string;
  partition(): void;
  heal(): void;
  close(): Promise<void>;
}

/** One direction of a proxied connection: bytes pass, or wait while the link is cut. */
class HeldDirection {
  private held: Buffer[] = [];
  constructor(private readonly to: net.Socket) {}
  send(chunk: Buffer, cut: boolean): void {
    if (cut) this.held.push(chunk);
    else this.to.write(chunk);
  }
  release(): void {
    for (const chunk of this.held) this.to.write(chunk);
    this.held = [];
  }
}

export async function startPartitionableLink(target: { host: string; port: number }): Promise<PartitionableLink> {
  let cut = false;
  const open = new Set<{ sockets: net.Socket[]; directions: HeldDirection[] }>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const toUpstream = new HeldDirection(upstream);
    const toClient = new HeldDirection(client);
    const connection = { sockets: [client, upstream], directions: [toUpstream, toClient] };
    open.add(connection);
    client.on('data', (chunk: Buffer) => toUpstream.send(chunk, cut));
    upstream.on('data', (chunk: Buffer) => toClient.send(chunk, cut));
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(connection);
    };
    for (const socket of connection.sockets) socket.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    partition() {
      cut = true;
    },
    heal() {
      cut = false;
      for (const connection of open) for (const direction of connection.directions) direction.release();
    },
    async close() {
      for (const connection of open) for (const socket of connection.sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
