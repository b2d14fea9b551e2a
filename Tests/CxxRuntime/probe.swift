// SPDX-License-Identifier: Apache-2.0
// A program linked as the release executables are (scripts/cxx-runtime.sh): it makes the Swift runtime call the C++
// runtime functions that Sources/CPrefsCxxRuntime/cxx_runtime.c defines (allocation, the guards, from several
// threads at once) and those it forwards to libstdc++ loaded on demand (a generic type's name is built in a
// std::string), and prints what it got. Run by scripts/check-linking.sh, which compares the output.
import Dispatch

struct Box<Value> {
    var value: Value
}

final class Node {
    let children: [Node]
    init(depth: Int) { children = depth == 0 ? [] : [Node(depth: depth - 1), Node(depth: depth - 1)] }
    var count: Int { 1 + children.reduce(0) { $0 + $1.count } }
}

print(String(describing: Box<[Int: String]>.self))
print(String(reflecting: Box(value: [1: "one"])))

// Type names and metadata from many threads at once: the runtime's caches and their guards race here.
let names = DispatchQueue(label: "names")
var seen = Set<String>()
DispatchQueue.concurrentPerform(iterations: 64) { index in
    let name: String
    switch index % 4 {
    case 0: name = String(describing: Box<Int>.self)
    case 1: name = String(describing: Box<Box<String>>.self)
    case 2: name = String(describing: [Box<Double>].self)
    default: name = String(describing: Box<(Int, Node)>.self)
    }
    names.sync { _ = seen.insert(name) }
}
print(seen.sorted().joined(separator: " "))
print(Node(depth: 12).count)
