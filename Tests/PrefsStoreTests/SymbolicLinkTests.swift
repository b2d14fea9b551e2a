// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

@testable import PrefsStore

/// Domain files kept as symbolic links by a dotfile manager (a GNU stow tree: the link points into the package's
/// directory with a relative path): followed when the link and its target are the user's, the target is a regular
/// file and lies inside the home directory; written through, the link staying a link; every other link refused.
@Suite struct SymbolicLinkTests {
    let app = user("com.example.App")

    /// `~/dotfiles/prefs/.config/preferences/<domain>.plist` holding `values`, and the Preferences directory's
    /// entry a relative link to it, as `stow` makes it.
    private func stow(_ values: PlistDictionary, in fixture: StoreFixture) throws -> (link: String, target: String) {
        let package = fixture.directory.file("dotfiles/prefs")
        try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
        try FileSystem.makeDirectories(fixture.paths.preferencesDirectory)
        let target = package + "/com.example.App.plist"
        try writeFile(target, try PlistSerialization.encode(.dictionary(values), format: .xml))
        let link = try fixture.path(app)
        #expect(symlink("../dotfiles/prefs/com.example.App.plist", link) == 0)
        return (link, target)
    }

    private func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    @Test func aStowedDomainIsReadAndWrittenThroughItsLink() throws {
        let fixture = try StoreFixture()
        let (link, target) = try stow(["theme": "dark"], in: fixture)
        let store = fixture.makeStore()
        #expect(store.value(forKey: "theme", in: app) == "dark")
        #expect(store.domainIssue(app) == nil)

        try store.set(12, forKey: "fontSize", in: app)
        try store.synchronize()
        #expect(isSymbolicLink(link), "the link stays a link")
        #expect(try readDictionary(target) == ["theme": "dark", "fontSize": 12])
        #expect(directoryEntries(fixture.directory.file("dotfiles/prefs")) == ["com.example.App.plist"])

        // A new store reads what the first wrote, through the link.
        #expect(fixture.makeStore().value(forKey: "fontSize", in: app) == 12)
    }

    @Test func emptyingAStowedDomainKeepsTheLinkAndAnEmptyTarget() throws {
        let fixture = try StoreFixture()
        let (link, target) = try stow(["theme": "dark"], in: fixture)
        let store = fixture.makeStore()
        try store.set(nil, forKey: "theme", in: app)
        try store.synchronize()
        #expect(isSymbolicLink(link))
        #expect(try readDictionary(target) == [:])
    }

    @Test func aCorruptTargetIsSetAsideBesideItselfAndTheLinkKept() throws {
        let fixture = try StoreFixture()
        let (link, target) = try stow([:], in: fixture)
        try writeFile(target, Array("<plist><dict><key>a</key>".utf8))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -10)], ofItemAtPath: target)
        let store = fixture.makeStore()
        #expect(store.domainIssue(app)?.code == .corruptFile)
        try store.set("b", forKey: "a", in: app)
        try store.synchronize()
        #expect(isSymbolicLink(link))
        #expect(try readDictionary(target) == ["a": "b"])
        let package = directoryEntries(fixture.directory.file("dotfiles/prefs"))
        #expect(package.count == 2 && package.contains { $0.hasPrefix("com.example.App.plist.corrupt-") }, "\(package)")
    }

    @Test func writesThroughTheLinkAndEditsOfTheTargetReachAWatchingStore() throws {
        let fixture = try StoreFixture()
        let (_, target) = try stow(["theme": "dark"], in: fixture)
        let watching = fixture.makeStore()
        #expect(watching.value(forKey: "theme", in: app) == "dark")
        let recorder = EventRecorder()
        let token = watching.observe(.domain(app), handler: recorder.handler)

        let writer = fixture.makeStore(watchesFiles: false)
        try writer.set("light", forKey: "theme", in: app)
        try writer.synchronize()
        #expect(eventually { watching.value(forKey: "theme", in: app) == "light" })
        // The event is delivered on the store's worker thread just after the value is in place: wait for it too.
        #expect(eventually { recorder.events.contains { $0.key == "theme" && $0.newValue == "light" } })

        // The dotfile manager's own change (a `git pull` in its tree) is a hand edit of the target.
        try writeFileByRename(target, try PlistSerialization.encode(["theme": "solarized"], format: .xml))
        #expect(eventually { watching.value(forKey: "theme", in: app) == "solarized" })
        #expect(
            eventually { recorder.events.contains { $0.newValue == "solarized" && $0.origin == .external } },
            "\(recorder.events)")
        _ = token
    }

    /// Links the store refuses, each with the words its error must hold; none is read, written or replaced.
    enum RefusedLink: String, CaseIterable, Sendable {
        case outsideHome, etcShadow, directory, fifo, loop, dangling

        var reason: String {
            switch self {
            case .outsideHome, .etcShadow: "outside the home directory"
            case .directory, .fifo: "not a regular file"
            case .loop: "loop"
            case .dangling: "does not exist"
            }
        }
    }

    @Test(arguments: RefusedLink.allCases)
    func otherLinksAreRefusedAndLeftAlone(_ kind: RefusedLink) throws {
        let fixture = try StoreFixture()
        try FileSystem.makeDirectories(fixture.paths.preferencesDirectory)
        let link = try fixture.path(app)
        let elsewhere = try TemporaryDirectory(prefix: "prefs-elsewhere")
        var untouched: String?
        switch kind {
        case .outsideHome:
            untouched = elsewhere.file("outside.plist")
            try writeFile(untouched!, try PlistSerialization.encode(["secret": "outside"], format: .xml))
            #expect(symlink(untouched!, link) == 0)
        case .etcShadow:
            // Outside every home, even root's; as any other user also another user's file.
            #expect(symlink("/etc/shadow", link) == 0)
        case .directory:
            try FileManager.default.createDirectory(
                atPath: fixture.directory.file("folder"), withIntermediateDirectories: false)
            #expect(symlink(fixture.directory.file("folder"), link) == 0)
        case .fifo:
            #expect(mkfifo(fixture.directory.file("pipe"), 0o600) == 0)
            #expect(symlink(fixture.directory.file("pipe"), link) == 0)
        case .loop:
            #expect(symlink(link, link + ".other") == 0)
            #expect(symlink(link + ".other", link) == 0)
        case .dangling:
            #expect(symlink(fixture.directory.file("gone.plist"), link) == 0)
        }
        let before = try untouched.map(readBytes)
        let store = fixture.makeStore()
        #expect(store.value(forKey: "secret", in: app) == nil)
        let issue = try #require(store.domainIssue(app))
        #expect(issue.description.contains("symbolic link"), "\(issue)")
        #expect(issue.description.contains(kind.reason), "\(issue)")
        try store.set("x", forKey: "k", in: app)
        #expect(throws: PrefsStoreError.self) { try store.synchronize() }
        #expect(isSymbolicLink(link), "the link is neither replaced nor removed")
        if let untouched { #expect(try readBytes(untouched) == before) }
    }

    /// Only root can give a file to another user.
    @Test(.enabled(if: getuid() == 0, "needs root to give a file to another user"))
    func aLinkToAnotherUsersFileIsRefused() throws {
        let fixture = try StoreFixture()
        try FileSystem.makeDirectories(fixture.paths.preferencesDirectory)
        let theirs = fixture.directory.file("theirs.plist")
        try writeFile(theirs, try PlistSerialization.encode(["secret": "theirs"], format: .xml))
        #expect(chown(theirs, 65534, 65534) == 0)
        let link = try fixture.path(app)
        #expect(symlink(theirs, link) == 0)
        let store = fixture.makeStore()
        #expect(store.value(forKey: "secret", in: app) == nil)
        #expect(store.domainIssue(app)?.description.contains("belongs to uid 65534") == true)
        try store.set("x", forKey: "k", in: app)
        #expect(throws: PrefsStoreError.self) { try store.synchronize() }
        #expect(try readDictionary(theirs) == ["secret": "theirs"])
    }
}
