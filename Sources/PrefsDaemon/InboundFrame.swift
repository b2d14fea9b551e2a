import PrefsPlist
import PrefsWire

/// What ``WireFrameChannelDecoder`` hands the connection handler for one frame (it hands over every whole frame of
/// a read at once, as an array).
enum InboundFrame {
    /// A frequent request read straight from the payload (``WireRequest/init(flatPayload:limits:)``).
    case request(WireRequest)
    /// Any other frame's dictionary, for ``WireRequest/init(dictionary:)`` to read or refuse.
    case message(PlistDictionary)
}
