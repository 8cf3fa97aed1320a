// swift-format-ignore-file
// (The verifier reads each expected diagnostic at the end of the line it is about.)
// `subscribe` as a function value keeps its main-actor isolation.
import Statecraft

func subscribeFunction(_ store: Store<AppState>) -> (StateSubscriber) -> Void {
  store.subscribe  // expected-error {{converting function value of type '@MainActor @Sendable (StateSubscriber) -> ()' to '(StateSubscriber) -> Void' loses global actor 'MainActor'}}
}

func mainActorSubscribeFunction(_ store: Store<AppState>) -> @MainActor (StateSubscriber) -> Void {
  store.subscribe
}
