import { createSocket, type RemoteInfo } from "node:dgram";
import { createServer, type Server, type Socket } from "node:net";
import dnsPacket, { type Answer, type Packet } from "dns-packet";

/**
 * A local DNS server for the sender domain check's tests (issue 36, target 5): UDP and TCP on
 * 127.0.0.1, one random port for both, answering TXT, MX, A, AAAA and CNAME from a table the test
 * sets and changes. A name not in the table is NXDOMAIN; a name without records of the asked type
 * answers empty (NODATA); a CNAME is followed within the table, as a recursive resolver's answer
 * would carry it. Encoding and decoding are dns-packet's (RFC 1035 wire format). Point Herald at
 * it with DNS_SERVERS=127.0.0.1:{port}.
 */

export interface ZoneEntry {
  /** each record: one string, or the strings of one record (joined by the client) */
  TXT?: (string | string[])[];
  MX?: { priority: number; exchange: string }[];
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
}

export type Zone = Record<string, ZoneEntry>;

export interface FakeDns {
  port: number;
  /** DNS_SERVERS for the server under test */
  servers: string;
  /** the table answered from; replace or change entries at will */
  zone: Zone;
  /** names asked, "TYPE name", in order */
  asked: string[];
  /** names this server answers SERVFAIL for (a broken or unreachable zone) */
  failing: Set<string>;
  close(): Promise<void>;
}

const lower = (name: string) => name.toLowerCase().replace(/\.$/, "");

function answersFor(zone: Zone, name: string, type: string, depth = 0): Answer[] | null {
  const entry = zone[lower(name)];
  if (!entry) return null;
  if (entry.CNAME && type !== "CNAME" && depth < 8) {
    const cname: Answer = { type: "CNAME", name, ttl: 60, class: "IN", data: entry.CNAME };
    return [cname, ...(answersFor(zone, entry.CNAME, type, depth + 1) ?? [])];
  }
  const ttl = 60;
  switch (type) {
    case "TXT":
      // A string holds at most 255 bytes (RFC 1035 §3.3): longer values go out in pieces, as DNS
      // hosts publish them.
      return (entry.TXT ?? []).map((value) => ({
        type: "TXT",
        name,
        ttl,
        class: "IN",
        data: (Array.isArray(value) ? value : [value]).flatMap(
          (part) => part.match(/[\s\S]{1,255}/g) ?? [""],
        ),
      }));
    case "MX":
      return (entry.MX ?? []).map((mx) => ({
        type: "MX",
        name,
        ttl,
        class: "IN",
        data: { preference: mx.priority, exchange: mx.exchange },
      }));
    case "A":
      return (entry.A ?? []).map((data) => ({ type: "A", name, ttl, class: "IN", data }));
    case "AAAA":
      return (entry.AAAA ?? []).map((data) => ({ type: "AAAA", name, ttl, class: "IN", data }));
    case "CNAME":
      return entry.CNAME ? [{ type: "CNAME", name, ttl, class: "IN", data: entry.CNAME }] : [];
    default:
      return [];
  }
}

/** RFC 1035 §4.1.1's RCODE: the low four bits of the header's flags (dns-packet reads it there). */
const RCODES = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3 } as const;

function respond(server: FakeDns, query: Packet): Buffer {
  const question = query.questions?.[0];
  const reply = (rcode: keyof typeof RCODES, answers: Answer[] = []) =>
    dnsPacket.encode({
      type: "response",
      id: query.id,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | RCODES[rcode],
      questions: query.questions,
      answers,
    });
  if (!question) return reply("FORMERR");
  server.asked.push(`${question.type} ${lower(question.name)}`);
  if (server.failing.has(lower(question.name))) return reply("SERVFAIL");
  const answers = answersFor(server.zone, question.name, question.type);
  return answers === null ? reply("NXDOMAIN") : reply("NOERROR", answers);
}

export async function startFakeDns(zone: Zone = {}): Promise<FakeDns> {
  let udp = createSocket("udp4");
  const sockets = new Set<Socket>();
  const tcp: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (buffered.length < 2 + length) break;
        const message = buffered.subarray(2, 2 + length);
        buffered = buffered.subarray(2 + length);
        try {
          socket.write(framed(message));
        } catch {
          socket.destroy();
        }
      }
    });
    socket.on("error", () => socket.destroy());
  });
  const server: FakeDns = {
    port: 0,
    servers: "",
    zone,
    asked: [],
    failing: new Set(),
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
  const framed = (message: Buffer) => {
    const answer = respond(server, dnsPacket.decode(message));
    const length = Buffer.alloc(2);
    length.writeUInt16BE(answer.length);
    return Buffer.concat([length, answer]);
  };
  // One port for both: the UDP socket's, then TCP on the same number (retried if taken).
  const onMessage = (message: Buffer, from: RemoteInfo) => {
    let answer: Buffer;
    try {
      answer = respond(server, dnsPacket.decode(message));
    } catch {
      return;
    }
    udp.send(answer, from.port, from.address);
  };
  for (let attempt = 0; ; attempt++) {
    udp.on("message", onMessage);
    await new Promise<void>((resolve, reject) => {
      udp.once("error", reject);
      udp.bind(0, "127.0.0.1", () => {
        udp.off("error", reject);
        resolve();
      });
    });
    const port = udp.address().port;
    const listening = await new Promise<boolean>((resolve) => {
      tcp.once("error", () => resolve(false));
      tcp.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (listening) {
      server.port = port;
      server.servers = `127.0.0.1:${port}`;
      return server;
    }
    if (attempt >= 5) throw new Error("no port free for both UDP and TCP");
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    udp = createSocket("udp4");
  }
}
