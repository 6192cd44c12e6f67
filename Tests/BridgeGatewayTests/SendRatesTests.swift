import BridgeGateway
import Testing

@Suite struct SendRatesTests {
    @Test func anAccountOverItsRateWaitsAndOthersDoNot() {
        let rates = SendRates(perSecond: 2)
        let start = ContinuousClock.now
        #expect(rates.admit("a", at: start) == nil)
        #expect(rates.admit("a", at: start) == nil)
        #expect(rates.admit("a", at: start) == 1)
        #expect(rates.admit("b", at: start) == nil)
        #expect(rates.admit("a", at: start + .milliseconds(500)) == nil)
        #expect(rates.admit("a", at: start + .milliseconds(500)) == 1)
    }

    @Test func noLimitAdmitsAll() {
        let rates = SendRates(perSecond: nil)
        let start = ContinuousClock.now
        #expect((0..<10_000).allSatisfy { _ in rates.admit("a", at: start) == nil })
    }
}
