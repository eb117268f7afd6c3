import Testing
@testable import StoreDeskUI

@Suite struct SparklineTests {
    @Test func theLargestIsAFullBlockZeroIsBlankAndAnyOtherAtLeastTheLowestMark() {
        #expect(Sparkline.levels([0, 1, 4, 8], width: 4) == [0, 1, 4, 8])
        #expect(Sparkline.levels([0, 1, 1000], width: 3) == [0, 1, 8])
        #expect(Sparkline.text([0, 1, 4, 8], width: 4, glyphs: .unicode) == " ▁▄█")
        #expect(Sparkline.text([0, 0, 0], width: 3, glyphs: .unicode) == "   ")
    }

    @Test func exactlyTheWidthWithTheNewestAtTheRight() {
        #expect(Sparkline.text([8, 4], width: 5, glyphs: .unicode) == "   █▄")
        #expect(Sparkline.text(Array(1...20), width: 4, glyphs: .unicode).count == 4)
        #expect(Sparkline.levels(Array(1...20), width: 4).last == 8)
        #expect(Sparkline.text([], width: 0, glyphs: .unicode).isEmpty)
        for width in [1, 7, 60] {
            #expect(Sparkline.text([3, 1, 4, 1, 5, 9, 2, 6], width: width, glyphs: .ascii).count == width)
        }
    }

    @Test func asciiUsesOnlyASCII() {
        let line = Sparkline.text(Array(0...16), width: 17, glyphs: .ascii)
        let ascii = line.allSatisfy { $0.isASCII }
        #expect(ascii)
        #expect(line.last == "#" && line.first == " ")
    }
}
