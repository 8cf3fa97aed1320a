// The counter as a SwiftUI app: the global store, an ObservableStore the view reads, which
// redraws only when the count changes. Compiled only where SwiftUI exists; add these files to
// an app target (with the CounterModel sources) to run it.
#if canImport(SwiftUI)
  import CounterModel
  import Statecraft
  import StatecraftObservation
  import SwiftUI

  let mainStore = Store<AppState>(reducer: counterReducer, state: nil)

  // Mark this type @main in the app target. ObservableStore needs iOS 17 and macOS 14.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  struct CounterApp: App {
    var body: some Scene {
      WindowGroup {
        CounterView(model: ObservableStore(mainStore))
      }
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  struct CounterView: View {
    let model: ObservableStore<AppState>

    var body: some View {
      HStack(spacing: 24) {
        Button("−") { model.dispatch(CounterAction.decrement) }
        Text("\(model.count)").font(.largeTitle.monospacedDigit())
        Button("+") { model.dispatch(CounterAction.increment) }
      }
    }
  }
#endif
