// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// Several `defaults` processes at once: each write takes the domain's lock and merges, so nothing is lost.
@Suite struct ConcurrencyTests {
    @Test func parallelWritesOfDifferentKeysAllLand() throws {
        let sandbox = try Sandbox()
        let count = 12
        let processes = try (0..<count).map { index in
            try RunningProcess(
                sandbox.defaults, ["write", "com.example.Shared", "Key\(index)", "-int", "\(index)"],
                environment: sandbox.environment)
        }
        for process in processes { #expect(process.stop(signal: 0) == 0) }
        let expected = (0..<count).map { "    Key\($0) = \($0);\n" }.sorted().joined()
        expectRun(try sandbox.run(["read", "com.example.Shared"]), stdout: "{\n" + expected + "}\n")
    }

    @Test func parallelAddsAndBatchesToDifferentKeysAllLand() throws {
        let sandbox = try Sandbox()
        let writers = try [
            RunningProcess(
                sandbox.defaults, ["write", "com.example.Shared", "A", "-array-add", "1"],
                environment: sandbox.environment),
            RunningProcess(
                sandbox.defaults, ["write", "com.example.Shared", "B", "one", "--", "C", "-bool", "yes"],
                environment: sandbox.environment),
            RunningProcess(
                sandbox.defaults, ["write", "com.example.Shared", "D", "-dict-add", "k", "v"],
                environment: sandbox.environment),
        ]
        for writer in writers { #expect(writer.stop(signal: 0) == 0) }
        expectRun(
            try sandbox.run(["read", "com.example.Shared"]),
            stdout:
                "{\n    A =     (\n        1\n    );\n    B = one;\n    C = 1;\n    D =     {\n        k = v;\n    };\n}\n"
        )
    }
}
