import Foundation
internal import CSDL2

/// The overlay's text: rendered once per distinct text and size, the status fitted to the
/// window (``StatusFit``), and the messages at the top.
extension VideoView {
    func render(_ text: String, size: Int = StatusFit.sizes[0], font: SDLObject? = nil) -> TextImage? {
        guard let font = font ?? fonts[size], !text.isEmpty else { return nil }
        guard let surface = TTF_RenderUTF8_Blended(font.pointer, text, SDL_Color(r: 255, g: 255, b: 255, a: 255)) else { return nil }
        defer { SDL_FreeSurface(surface) }
        guard let texture = try? SDLObject(SDL_CreateTextureFromSurface(renderer.pointer, surface), "draw text",
                                           destroy: SDL_DestroyTexture) else { return nil }
        return TextImage(texture: texture, width: surface.pointee.w, height: surface.pointee.h)
    }

    /// `text`'s width at `size`, measured without drawing it.
    func measure(_ text: String, size: Int) -> Int? {
        guard let font = fonts[size] else { return nil }
        var w: Int32 = 0, h: Int32 = 0
        guard TTF_SizeUTF8(font.pointer, text, &w, &h) == 0 else { return nil }
        return Int(w)
    }

    /// The status variant and size that fit `available` pixels, drawn (again only when the
    /// variants or the width changed).
    func statusLine(_ variants: [String], available: Int32) -> TextImage? {
        if let cached = statusImage, cached.key == variants, cached.available == available { return cached.image }
        let chosen = StatusFit.choose(variants, available: Int(available)) { measure($0, size: $1) }
        guard let image = render(chosen.text, size: chosen.size) else { return nil }
        statusImage = (variants, available, image)
        return image
    }

    /// A small label (the strip's times), kept while it is in use.
    func label(_ text: String) -> TextImage? {
        if let image = labelImages[text] { return image }
        if labelImages.count > 8 { labelImages = [:] }
        let image = render(text, size: Self.labelSize)
        labelImages[text] = image
        return image
    }

    /// The messages above the status band, each on a dark box, newest lowest; one too wide for
    /// the window takes smaller type, then more lines. Returns the y above the first.
    func drawMessages(_ messages: [String], outputWidth: Int32, bottom: Int32) -> Int32 {
        let r = renderer.pointer
        messageImages = messageImages.filter { messages.contains($0.key) }
        var y = bottom
        for text in messages.reversed() {
            if messageImages[text] == nil {
                let room = Int(outputWidth) - 24
                let size = [Self.messageSize, 12].first { (measure(text, size: $0) ?? 0) <= room } ?? 12
                messageImages[text] = wrapped(text, size: size, width: room).compactMap { render($0, size: size) }
            }
            guard let lines = messageImages[text], !lines.isEmpty else { continue }
            let lineHeight = lines[0].height
            y -= lineHeight * Int32(lines.count) + 10
            var box = SDL_Rect(x: 6, y: y, w: min(outputWidth - 12, (lines.map(\.width).max() ?? 0) + 12),
                               h: lineHeight * Int32(lines.count) + 6)
            SDL_SetRenderDrawColor(r, 0, 0, 0, 200)
            SDL_RenderFillRect(r, &box)
            for (i, line) in lines.enumerated() {
                var at = SDL_Rect(x: 12, y: y + 3 + lineHeight * Int32(i), w: line.width, h: line.height)
                SDL_RenderCopy(r, line.texture.pointer, nil, &at)
            }
        }
        return y
    }

    /// `text` in lines no wider than `width` at `size`, broken between words.
    func wrapped(_ text: String, size: Int, width: Int) -> [String] {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if !line.isEmpty, (measure(candidate, size: size) ?? 0) > width {
                lines.append(line)
                line = String(word)
            } else {
                line = candidate
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
