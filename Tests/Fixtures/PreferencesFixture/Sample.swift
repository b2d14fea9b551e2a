// SPDX-License-Identifier: Apache-2.0
import Preferences

/// The classic `NSUserDefaults` sample, ported line by line; docs/PREFERENCES.md shows these exact lines, and the
/// tests check that the two agree.
func runSample() {
    // BEGIN SAMPLE
    let defaults = Preferences.standard

    // Save the user's details.
    defaults.set("Ada Lovelace", forKey: "name")
    defaults.set(36, forKey: "age")
    defaults.set(1.65, forKey: "height")
    defaults.set("female", forKey: "gender")
    defaults.synchronize()

    // Read them back.
    let name = defaults.string(forKey: "name") ?? "unknown"
    let age = defaults.integer(forKey: "age")
    let height = defaults.double(forKey: "height")
    let gender = defaults.string(forKey: "gender") ?? "unknown"
    print("\(name), \(age), \(height) m, \(gender)")
    // END SAMPLE
}
