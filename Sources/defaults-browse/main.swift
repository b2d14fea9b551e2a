// SPDX-License-Identifier: Apache-2.0
// `defaults browse [domain]` runs this executable with its own arguments: the terminal browser, with ncurses linked
// in (docs/BROWSE.md). It also runs by hand, as `defaults-browse [domain]`.
import Glibc
import PrefsBrowser

exit(BrowserCommand.main(arguments: Array(CommandLine.arguments.dropFirst())))
