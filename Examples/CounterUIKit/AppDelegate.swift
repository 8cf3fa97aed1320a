// The counter as a UIKit app: the global store in AppDelegate, a view controller that
// subscribes in viewDidLoad. Compiled only where UIKit exists; add these files to an iOS app
// target (with the CounterModel sources) to run it.
#if canImport(UIKit)
  import CounterModel
  import Statecraft
  import UIKit

  let mainStore = Store<AppState>(reducer: counterReducer, state: nil)

  // Mark this type @main in the app target.
  final class AppDelegate: UIResponder, UIApplicationDelegate {
    var window: UIWindow?

    func application(
      _ application: UIApplication,
      didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
      let window = UIWindow(frame: UIScreen.main.bounds)
      window.rootViewController = CounterViewController()
      window.makeKeyAndVisible()
      self.window = window
      return true
    }
  }

  final class CounterViewController: UIViewController, StoreSubscriber {
    private let label = UILabel()

    override func viewDidLoad() {
      super.viewDidLoad()
      view.backgroundColor = .systemBackground
      label.font = .monospacedDigitSystemFont(ofSize: 48, weight: .regular)
      let increment = UIButton(
        type: .system,
        primaryAction: UIAction(title: "+") { _ in mainStore.dispatch(CounterAction.increment) })
      let decrement = UIButton(
        type: .system,
        primaryAction: UIAction(title: "−") { _ in mainStore.dispatch(CounterAction.decrement) })
      let stack = UIStackView(arrangedSubviews: [decrement, label, increment])
      stack.spacing = 24
      stack.translatesAutoresizingMaskIntoConstraints = false
      view.addSubview(stack)
      NSLayoutConstraint.activate([
        stack.centerXAnchor.constraint(equalTo: view.centerXAnchor),
        stack.centerYAnchor.constraint(equalTo: view.centerYAnchor),
      ])
      mainStore.subscribe(self) { $0.select(\.count) }
    }

    deinit {
      mainStore.unsubscribe(self)
    }

    func newState(state count: Int) {
      label.text = "\(count)"
    }
  }
#endif
