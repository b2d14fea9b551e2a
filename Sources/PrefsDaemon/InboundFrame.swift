import PrefsPlist
import PrefsWire

/// What ``WireFrameChannelDecoder`` hands the connection handler for one frame.
enum InboundFrame {
    /// A frequent request read straight from the payload (``WireRequest/init(flatPayload:limits:)``).
    case request(WireRequest)
    /// Any other frame's dictionary, for ``WireRequest/init(dictionary:)`` to read or refuse.
    case message(PlistDictionary)
}
