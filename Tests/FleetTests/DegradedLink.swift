// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Latency and loss on a ``NetworkNamespace``'s link, made by the kernel's netfilter queue: inside the namespace,
/// `iptables-legacy` sends every packet that crosses the link (both ways) to an `NFQUEUE`, and a small program
/// bound to that queue lets each through after `delay`, or drops it with probability `loss`. The packets are real
/// and so is TCP's answer to them (retransmission, its timers); only the queue's verdicts are ours.
///
/// `tc netem` would be the usual tool, but kernels built without `sch_netem` (as on the development VM) refuse it;
/// the queue needs only `CONFIG_NETFILTER_XT_TARGET_NFQUEUE` and `CONFIG_NETFILTER_NETLINK_QUEUE`. Without a program
/// bound to the queue the kernel drops what the rules send to it, so a failure here cuts the link, never the
/// machine's own traffic: the rules live in the namespace only.
final class DegradedLink: @unchecked Sendable {
    static let iptables = "/usr/sbin/iptables-legacy"

    /// Whether links can be degraded here: namespaces, `iptables-legacy` (Debian's `iptables`) and the kernel's
    /// netfilter queue, tried once.
    static let isAvailable: Bool = {
        guard NetworkNamespace.isAvailable, FileManager.default.isExecutableFile(atPath: iptables) else { return false }
        guard let namespace = try? NetworkNamespace() else { return false }
        return (try? DegradedLink(namespace, delay: .milliseconds(1), loss: 0)) != nil
    }()

    private let process: SpawnedProcess
    private let directory: TemporaryDirectory

    /// Delays every packet crossing `namespace`'s link by `delay` in each direction and drops a fraction `loss`
    /// of them (each direction on its own).
    init(_ namespace: NetworkNamespace, delay: Duration, loss: Double) throws {
        directory = try TemporaryDirectory(prefix: "fleet-link")
        let queue = Int.random(in: 1...65_000)
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        process = try SpawnedProcess(
            NetworkNamespace.ip,
            [
                "netns", "exec", namespace.name, "/usr/bin/python3", "-c", Self.program, "\(queue)", "\(seconds)",
                "\(loss)",
            ],
            environment: [:], logDirectory: directory.path)
        do {
            try waitUntil("the packet queue to be bound", timeout: .seconds(10)) {
                guard process.isRunning else { throw TestFailure("the packet queue: \(process.standardError)") }
                return ((try? String(contentsOfFile: process.outputPath, encoding: .utf8)) ?? "").contains("ready")
            }
            for rule in [
                ["-A", "OUTPUT", "-o", namespace.innerLink], ["-A", "INPUT", "-i", namespace.innerLink],
            ] {
                try namespace.run([Self.iptables] + rule + ["-j", "NFQUEUE", "--queue-num", "\(queue)"])
            }
        } catch {
            process.kill()
            throw error
        }
    }

    deinit { process.kill() }

    /// The program bound to the queue: nfnetlink_queue's messages (linux/netfilter/nfnetlink_queue.h) by hand, so
    /// that it needs nothing beyond Python. It binds the queue, asks for packet metadata only, and answers each
    /// packet's id with a verdict: `NF_DROP` at once for the lost ones, `NF_ACCEPT` once its delay has passed.
    private static let program = """
        import heapq, os, random, select, socket, struct, sys, time
        queue, delay, loss = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
        SUBSYSTEM_QUEUE, PACKET, VERDICT, CONFIG = 3 << 8, 0, 1, 2
        link = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)  # NETLINK_NETFILTER
        link.bind((0, 0))
        link.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        sequence = 0
        def attribute(kind, payload):
            data = struct.pack("=HH", 4 + len(payload), kind) + payload
            return data + b"\\0" * (-len(data) % 4)
        def send(kind, attributes, flags=1):  # NLM_F_REQUEST
            global sequence
            sequence += 1
            body = struct.pack("=BBH", socket.AF_UNSPEC, 0, socket.htons(queue)) + b"".join(attributes)
            link.send(struct.pack("=IHHII", 16 + len(body), SUBSYSTEM_QUEUE | kind, flags, sequence, 0) + body)
        def configure(attributes):
            send(CONFIG, attributes, flags=1 | 4)  # and NLM_F_ACK
            data = link.recv(65536)
            if struct.unpack_from("=H", data, 4)[0] == 2 and struct.unpack_from("=i", data, 16)[0]:
                sys.exit("nfqueue: " + os.strerror(-struct.unpack_from("=i", data, 16)[0]))
        configure([attribute(1, struct.pack("!BxH", 1, 0))])  # NFQA_CFG_CMD: NFQNL_CFG_CMD_BIND
        # NFQA_CFG_PARAMS: no bytes of the packet, NFQNL_COPY_META; NFQA_CFG_QUEUE_MAXLEN.
        configure([attribute(2, struct.pack("!IB", 0, 1)), attribute(3, struct.pack("!I", 100000))])
        print("ready", flush=True)
        held = []
        while True:
            timeout = max(0.0, held[0][0] - time.monotonic()) if held else None
            if select.select([link], [], [], timeout)[0]:
                data = link.recv(1 << 20)
                offset = 0
                while offset + 16 <= len(data):
                    length, kind = struct.unpack_from("=IH", data, offset)
                    if kind == SUBSYSTEM_QUEUE | PACKET:
                        position = offset + 20
                        while position + 4 <= offset + length:
                            size, name = struct.unpack_from("=HH", data, position)
                            if name & 0x7FFF == 1:  # NFQA_PACKET_HDR: the packet's id first
                                packet = struct.unpack_from("!I", data, position + 4)[0]
                                if random.random() < loss:
                                    send(VERDICT, [attribute(2, struct.pack("!II", 0, packet))])
                                else:
                                    heapq.heappush(held, (time.monotonic() + delay, packet))
                            position += (size + 3) & ~3
                    offset += (length + 3) & ~3
            now = time.monotonic()
            while held and held[0][0] <= now:
                send(VERDICT, [attribute(2, struct.pack("!II", 1, heapq.heappop(held)[1]))])
        """
}
