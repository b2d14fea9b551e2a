// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import Testing

/// Readers, writers and search-list changes at the same time, on several threads.
@Suite struct ConcurrencyTests {
    @Test func readsWritesAndSuiteChangesRaceSafely() throws {
        let storage = PreferencesStorage.inMemory()
        let prefs = try Preferences(domain: "com.example.App", storage: storage)
        try storage.setContents(["fromSuite": 7, "n": -1], ofDomain: "com.example.suite")
        prefs.set(0, forKey: "n")
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<2_000 {
                switch worker {
                case 0:
                    // Swaps the view readers use, back and forth.
                    if round % 2 == 0 {
                        prefs.addSuite(named: "com.example.suite")
                    } else {
                        prefs.removeSuite(named: "com.example.suite")
                    }
                case 1:
                    prefs.set(round, forKey: "n")
                default:
                    let suiteValue = prefs.integer(forKey: "fromSuite")
                    #expect(suiteValue == 0 || suiteValue == 7)
                    #expect(prefs.integer(forKey: "n") >= 0)
                }
            }
        }
        #expect(prefs.integer(forKey: "n") == 1_999)
        #expect(prefs.suites == [])
    }
}
