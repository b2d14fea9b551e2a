// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PrefsDomain

@Suite struct DomainNameTests {
    @Test(arguments: [
        "com.example.App", "a", "NSGlobalDomain", "org.gnu.Emacs-29_1", "x.y.z", String(repeating: "a", count: 216),
    ])
    func acceptsValidNames(text: String) throws {
        let domain = try DomainName(text)
        #expect(domain.rawValue == text)
        #expect(DomainName.isValid(text))
    }

    @Test("every character below U+0100 is allowed exactly when it is A–Z, a–z, 0–9, '.', '_' or '-'")
    func eachCharacterAgainstTheRule() {
        for value in UInt32(0)..<256 {
            let scalar = Unicode.Scalar(value)!
            let allowed =
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "." || scalar == "_" || scalar == "-"
            #expect(DomainName.isValid("x" + String(scalar) + "x") == allowed, "U+\(String(value, radix: 16))")
        }
    }

    @Test(arguments: [
        ("", "empty"),
        (".hidden", "start with '.'"),
        ("..", "start with '.'"),
        ("com..example", "'..'"),
        ("../etc/passwd", "start with '.'"),
        ("a/b", "not a path"),
        ("com.example App", "not a path"),
        ("caf\u{E9}", "not a path"),
        ("nul\u{0}byte", "not a path"),
        (String(repeating: "a", count: 217), "at most 216 bytes"),
        (String(repeating: "a", count: 255), "by-host file name fits the file system's 255-byte limit"),
    ])
    func rejectsInvalidNamesSayingWhy(text: String, reason: String) {
        #expect(!DomainName.isValid(text))
        let error = #expect(throws: PrefsStoreError.self) { try DomainName(text) }
        #expect(error?.code == .invalidDomainName)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func messagesEscapeControlCharacters() throws {
        let error = #expect(throws: PrefsStoreError.self) { try DomainName("bad\nname") }
        #expect(error?.message.contains("\"bad\\nname\"") == true)
    }

    @Test func globalDomainIsNSGlobalDomain() throws {
        #expect(try DomainName("NSGlobalDomain") == .global)
        #expect(DomainName.global.isGlobal)
        #expect(try !DomainName("com.example").isGlobal)
    }
}
