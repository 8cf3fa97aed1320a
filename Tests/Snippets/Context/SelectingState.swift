// Selecting state declares the films app's state itself; its views subscribe to this store.
let mainStore = Store<AppState>(reducer: appReducer, state: nil)
