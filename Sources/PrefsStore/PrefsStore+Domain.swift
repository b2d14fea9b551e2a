// SPDX-License-Identifier: Apache-2.0
// The store's API is written in the domain vocabulary (names, scopes, search lists, layers, change events, the
// error), which lives beneath it so that the protocol and the client need no engine; importing PrefsStore brings it.
@_exported import PrefsDomain
