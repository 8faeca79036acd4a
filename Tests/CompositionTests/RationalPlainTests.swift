import Composition
import PropertyBased
import Testing
import TestSupport

/// Documents are read through a fast path for the plain forms of numbers (issue 40); it must
/// give what the general parser gives, and leave everything else to it.
@Suite struct RationalPlainTests {
    @Test func plainFormsReadExactly() async {
        let checked = Counter()
        await propertyCheck(count: 500, input: Gen.int64(in: -999_999_999...999_999_999), Gen.int64(in: 1...999_999)) { n, d in
            // A decimal: n / 10^k written with k fraction digits; a fraction: n/d.
            let k = Int(d % 7)
            var digits = String(n.magnitude)
            while digits.count <= k { digits = "0" + digits }
            let decimal = (n < 0 ? "-" : "") + (k == 0 ? digits : digits.dropLast(k) + "." + digits.suffix(k))
            var scale: Int64 = 1
            for _ in 0..<k { scale *= 10 }
            let fraction = "\(n.magnitude)/\(d)"
            do {
                #expect(try Rational(parsing: decimal) == Rational(n, scale), "\(decimal)")
                // The general path (a leading space leaves the fast one) agrees.
                #expect(try Rational(parsing: " " + decimal) == Rational(parsing: decimal), "\(decimal)")
                #expect(try Rational(parsing: fraction) == Rational(Int64(n.magnitude), d), "\(fraction)")
                #expect(try Rational(parsing: fraction + " ") == Rational(parsing: fraction), "\(fraction)")
            } catch {
                Issue.record("\(decimal), \(fraction): \(error)")
                return
            }
            checked.add()
        }
        #expect(checked.value == 500)
    }

    /// What the fast path leaves alone is refused or read by the general one, as before.
    @Test(arguments: ["3.", ".5", "-1/2", "1/0", "+2", "1e3", "", "-", "1/2/3", "1234567890123456789", "0.1234567890123456789", "4/"])
    func otherFormsAsBefore(text: String) {
        let ok: [String: String] = ["3.": "3", ".5": "1/2", "-1/2": "-1/2", "+2": "2"]
        if let value = ok[text] {
            #expect((try? Rational(parsing: text)) == (try? Rational(parsing: value)), "\(text)")
        } else {
            #expect(throws: CompositionError.self, "\(text)") { try Rational(parsing: text) }
        }
    }
}
