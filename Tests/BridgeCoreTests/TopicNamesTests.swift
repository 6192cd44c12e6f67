import Testing

@testable import BridgeCore

/// Topic names held once, as ids, while devices hold them.
@Suite("Topic names")
struct TopicNamesTests {
    @Test("a name keeps its id while held; it goes, and its id is used again, when nobody holds it")
    func holdAndRelease() {
        var names = TopicNames()
        let news = names.hold("news")
        #expect(names.hold("news") == news && names.hold("sport") != news)
        #expect(names.id(of: "news") == news && names.name(of: news) == "news")
        names.release(news)
        #expect(names.id(of: "news") == news, "held once more")
        names.release(news)
        #expect(names.id(of: "news") == nil)
        #expect(names.hold("weather") == news, "its id is used again")
        #expect(names.name(of: news) == "weather")
    }

    @Test("a device's set through the states: names come back, the limit counts topics, a dropped partition lets go")
    func throughTheStates() {
        var states = TopicStates()
        states.adopt(0)
        states.adopt(1)
        #expect(states.subscribe("a", to: "news", in: 0, limit: 2) == true)
        #expect(states.subscribe("a", to: "news", in: 0, limit: 2) == false)
        #expect(states.subscribe("b", to: "news", in: 1, limit: 2) == true)
        #expect(states.subscribe("a", to: "sport", in: 0, limit: 2) == true)
        #expect(states.subscribe("a", to: "weather", in: 0, limit: 2) == nil)
        #expect(states.topics(of: "a", in: 0) == ["news", "sport"])
        #expect(states.unsubscribe("a", from: "news", in: 0) && !states.unsubscribe("a", from: "news", in: 0))
        states.drop(0)
        #expect(states.topics(of: "b", in: 1) == ["news"], "another partition's device keeps the name")
        #expect(states.forget("b", in: 1) == ["news"] && states.topics(of: "b", in: 1).isEmpty)
    }
}
