// SPDX-License-Identifier: Apache-2.0
import PrefsErrors
import Testing

/// The one way an error is shown: its message, then its cause's own description, down the chain of causes.
@Suite struct CodedErrorTests {
    /// An error of the shape the modules' error types have.
    struct SampleError: CodedError {
        struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Base: String, Hashable, Sendable {
                case outer, inner
            }
            private let base: Base

            static let outer = Code(base: .outer)
            static let inner = Code(base: .inner)

            var description: String { base.rawValue }
        }

        var code: Code
        var message: String
        var cause: (any Error & Sendable)?

        init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
            self.code = code
            self.message = message
            self.cause = cause
        }
    }

    /// An error of another shape, as a system call's error is: shown by its own description.
    struct OtherError: Error, CustomStringConvertible {
        var description: String { "rename(/d/f): No space left on device" }
    }

    /// A plain error, with no description of its own.
    enum PlainError: Error {
        case failed
    }

    @Test func withoutCauseIsTheMessage() {
        #expect(SampleError(.outer, "cannot write domain a.b").description == "cannot write domain a.b")
        #expect("\(SampleError(.outer, "cannot write domain a.b"))" == "cannot write domain a.b")
    }

    @Test func causeFollowsAfterAColon() {
        let error = SampleError(.outer, "cannot write domain a.b", cause: OtherError())
        #expect(error.description == "cannot write domain a.b: rename(/d/f): No space left on device")
        #expect(String(describing: error) == error.description)
    }

    @Test func chainOfCausesReadsAsOneLine() {
        let inner = SampleError(.inner, "cannot write domain a.b", cause: OtherError())
        let outer = SampleError(.outer, "the write failed", cause: inner)
        #expect(outer.description == "the write failed: cannot write domain a.b: rename(/d/f): No space left on device")
        #expect(outer.code == .outer)
        #expect((outer.cause as? SampleError)?.code == .inner)
    }

    @Test func causeWithoutDescriptionIsShownAsSwiftShowsIt() {
        let error = SampleError(.outer, "failed", cause: PlainError.failed)
        #expect(error.description == "failed: failed")
    }

    @Test func codeIsShownByItsName() {
        #expect("\(SampleError(.inner, "x").code)" == "inner")
    }
}
