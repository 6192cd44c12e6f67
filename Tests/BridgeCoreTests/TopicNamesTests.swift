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

    @Test("a device's set through the states: names come back, repeats change nothing, a dropped partition lets go")
    func throughTheStates() {
        var states = TopicStates()
        states.adopt(0)
        states.adopt(1)
        for (token, topic, partition) in [("a", "news", 0), ("a", "news", 0), ("b", "news", 1), ("a", "sport", 0)] {
            states.apply(.deviceTopic(token: token, topic: topic, isSubscribed: true), in: Int32(partition))
        }
        #expect(states.topics(of: "a", in: 0) == ["news", "sport"] && states.topicCount(of: "a", in: 0) == 2)
        #expect(states.hasTopic("news", token: "a", in: 0) && !states.hasTopic("weather", token: "a", in: 0))
        states.apply(.deviceTopic(token: "a", topic: "news", isSubscribed: false), in: 0)
        states.apply(.deviceTopic(token: "a", topic: "news", isSubscribed: false), in: 0)
        #expect(states.topics(of: "a", in: 0) == ["sport"])
        states.drop(0)
        #expect(states.topics(of: "b", in: 1) == ["news"], "another partition's device keeps the name")
        states.apply(.deviceTopic(token: "b", topic: "news", isSubscribed: false), in: 1)
        #expect(states.topics(of: "b", in: 1).isEmpty && states.topicCount(of: "b", in: 1) == 0)
        #expect(states.topicNameCount == 0, "a repeated join leaves no extra hold on its name")
    }
}
